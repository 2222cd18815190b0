package gpuintent

import (
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Names are the gpu block's attribute and nested block names, required
// ones first (a message listing them starts with what must be there), and
// each nested block's attribute names: what anything else that takes a gpu
// request (the pod placement function and data source) must accept.
func Names() (names []string, nested map[string][]string) {
	b := Block()
	nested = map[string][]string{}
	for name := range b.Attributes {
		names = append(names, name)
	}
	for name, block := range b.Blocks {
		names = append(names, name)
		if single, ok := block.(schema.SingleNestedBlock); ok {
			nested[name] = slices.Sorted(maps.Keys(single.Attributes))
		}
	}
	required := func(name string) bool {
		a, ok := b.Attributes[name]
		return ok && a.IsRequired()
	}
	slices.SortFunc(names, func(x, y string) int {
		if rx, ry := required(x), required(y); rx != ry {
			if rx {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	return names, nested
}
