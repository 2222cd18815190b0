package workload

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Container is one GPU container as placement sees it: its GPU request and
// its sizing. A gpu_workload has one (ContainerOf); each GPU container of a
// chart's values (values/chartkit) is one too. Both are checked by
// ResolveContainer and placed by PlacePod, so a chart's GPU pods and a
// gpu_workload with the same GPU block land on the same nodes.
type Container struct {
	// Name names the DRA claim template (<name>-gpu).
	Name   string
	GPU    spec.GPU
	Spot   bool
	Size   string
	CPU    string
	Memory string
	// ShmSize is checked against the sized memory; "" for chart containers.
	ShmSize string
	Env     map[string]string
	// KeepUnsized leaves CPU and memory out of the resources when neither
	// Size, CPU nor Memory is set: a chart's own defaults then apply, which
	// a preset the user did not ask for would override.
	KeepUnsized bool
}

// ContainerOf is the workload's GPU container.
func ContainerOf(w spec.Workload) Container {
	return Container{Name: w.Name, GPU: w.GPU, Spot: w.Spot, Size: w.Size, CPU: w.CPU, Memory: w.Memory, ShmSize: w.ShmSize, Env: w.Env}
}

// ResolveContainer runs the rules of one GPU container on the resolved
// cloud: the GPU block against the catalog and the cloud, the env against
// the cloud's driver setup, and the sizing. The diagnostic paths are the
// workload's (gpu.count, cpu, env["X"]); a chart's block puts its own path
// in front.
func ResolveContainer(c Container, cloud clouds.GPURules, strict bool) (clouds.GPUIntent, gpudiag.Diagnostics) {
	in, diags := ParseGPUIntent(c.GPU, c.Spot, cloud, strict)
	checkEnv(c.Env, cloud, &diags)
	checkSizing(c, in, &diags)
	return in, diags
}

// ContainerObjectMeta is the metadata of a chart container's own objects
// (its DRA claim template): the identity labels a workload of that name
// gets, in the default namespace.
func ContainerObjectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: spec.DefaultNamespace, Labels: map[string]string{
		spec.LabelName: name, spec.LabelInstance: name, spec.LabelManagedBy: spec.ManagedBy,
	}}
}
