// Command terraform-provider-gpu serves the gpu Terraform provider over
// plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/gpuform/terraform-provider-gpu/internal/provider"
)

// version is set by the release build through -ldflags "-X main.version=...".
var version = "dev"

// providerAddress is the provider's source address. Terraform configurations
// write it as "gpuform/gpu".
const providerAddress = "registry.terraform.io/gpuform/gpu"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "start the provider in debug mode for delve; prints TF_REATTACH_PROVIDERS")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: providerAddress,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
