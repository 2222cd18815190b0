// Command terraform-provider-gpu serves the gpu Terraform provider over
// plugin protocol 6.
package main

import (
	"flag"
	"log"
	"os"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
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
	quietUnlessLogging()
	tuneGC()

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	stopProfile := startCPUProfile()
	err := tf6server.Serve(providerAddress, protocol.NewServer(provider.New(version)), opts...)
	stopProfile()
	if err != nil {
		log.Fatal(err.Error())
	}
}

// logEnv are the variables through which a user asks for provider logs.
var logEnv = []string{"TF_LOG", "TF_LOG_PATH", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO",
	"TF_LOG_SDK_FRAMEWORK", "TF_ACC_LOG_PATH"}

// quietUnlessLogging turns the plugin SDK's logs off when nobody asked for
// logs. With no level set the SDK logs at TRACE, encoding a JSON line per
// step of every RPC that Terraform then discards: about 40% of the
// provider's time in a plan of hundreds of workloads (bench/results.md).
// Setting any TF_LOG* variable brings the logs back unchanged.
func quietUnlessLogging() {
	for _, name := range logEnv {
		if os.Getenv(name) != "" {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		_ = os.Setenv(name, "off")
	}
}

// GC settings unless GOGC or GOMEMLIMIT say otherwise. Every plan RPC of
// the plugin framework allocates copies of the whole resource value per
// attribute, so with Go's default the provider spends a third of a large
// plan collecting garbage. A higher GOGC trades that for memory, and the
// soft limit keeps the process well inside the 150 MB budget
// (bench/results.md).
const (
	gcPercent   = 400
	memoryLimit = 96 << 20
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
