// Package provider is the Terraform glue of terraform-provider-gpu: schemas,
// plan-time validation wiring and CRUD. GPU rules live in internal/render and
// every cluster call in internal/kube.
package resourcekit

import (
	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// providerData is what resources and data sources receive from Configure.
type ProviderData struct {
	Kube         *kube.Lazy
	DefaultCloud string
}
