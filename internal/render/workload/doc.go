// Package workload decides whether a gpu_workload is valid (Validate, at
// plan time, every finding on its Terraform attribute path) and renders it
// (Render): the Deployment or Job with the cloud's placement from the clouds
// package, the model-cache PVC and the DRA ResourceClaimTemplate. The
// manifest the provider serves and the golden files check come from the one
// encoder here (EncodeManifest).
package workload
