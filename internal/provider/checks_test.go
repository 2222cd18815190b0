package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// checkListLacks asserts that no element of a list attribute equals value.
func checkListLacks(name, attribute, value string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[name]
		if !ok {
			return fmt.Errorf("%s not in state", name)
		}
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, attribute+".") && k != attribute+".#" && v == value {
				return fmt.Errorf("%s.%s contains %q", name, attribute, value)
			}
		}
		return nil
	}
}
