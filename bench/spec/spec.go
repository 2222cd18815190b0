// Package spec is the benchmark's workload, in one place for both sides: the
// driver writes it as HCL for gpu_workload and terraform_data, and the API
// floor renders it with internal/render exactly as the provider does, so
// both apply the same Deployments.
package spec

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The workload: one GPU, cloud "generic", one replica, a placeholder image.
const (
	Image       = "registry.example/cuda:12"
	Cloud       = "generic"
	Accelerator = "h100-80gb"
	GPUsPerNode = 8
	Replicas    = 1
	GPUCount    = 1
)

// LabelKey marks everything one benchmark run creates (nodes, namespaces)
// with the run id as value. Nodes also carry it as a taint, and the pool
// selects and tolerates it, so benchmark pods land only on benchmark nodes
// and never take GPUs from the fixture nodes other tests use.
const LabelKey = "gpuform.io/bench"

// FloorFieldManager is the API floor's server-side apply manager, distinct
// from the provider's (terraform-provider-gpu).
const FloorFieldManager = "gpu-bench-apifloor"

// Name is the i-th workload's name; the HCL uses format(NameFormat, count.index).
func Name(i int) string { return fmt.Sprintf(NameFormat, i) }

// NameFormat is shared by Name and the generated HCL.
const NameFormat = "gpu-%03d"

// Pool is the node pool the workloads are placed with (node_pool): GPU
// Operator style H100 nodes with the run's label and taint.
func Pool(id string) spec.PoolPolicy {
	return spec.PoolPolicy{
		Name:        "bench-" + id,
		Cloud:       Cloud,
		Accelerator: Accelerator,
		GPUsPerNode: GPUsPerNode,
		Labels:      map[string]string{LabelKey: id},
		Taints:      []spec.Taint{{Key: LabelKey, Value: id, Effect: string(corev1.TaintEffectNoSchedule)}},
	}
}

// PoolRef is the node_pool value both sides use, as JSON with every
// attribute (the ref a gpu_node_pool_policy with Pool(id) would output);
// the configurations pass it through jsondecode.
func PoolRef(id string) string { return PoolJSON(Pool(id)) }

// PoolJSON is a pool's ref as jsondecode needs it.
func PoolJSON(p spec.PoolPolicy) string {
	s, err := refs.PoolJSON(p)
	if err != nil {
		panic(err) // a policy of plain strings and numbers always encodes
	}
	return s
}

// Workload is what the provider's converter builds from the HCL the driver
// writes (kind defaults to deployment).
func Workload(name, namespace string) spec.Workload {
	replicas := int32(Replicas)
	return spec.Workload{
		Name:      name,
		Namespace: namespace,
		Kind:      spec.KindDeployment,
		Cloud:     Cloud,
		Replicas:  &replicas,
		Image:     Image,
		GPU:       spec.GPU{Count: GPUCount},
	}
}

// Render does what gpu_workload's apply does before its server-side apply:
// decode node_pool, place the workload on the pool, render for the server
// version without render's YAML. (The provider also adds an annotation
// recording the intent, for import; the floor leaves it out.)
func Render(name, namespace, poolRef string, version *utilversion.Version) (*workload.Rendered, error) {
	var onPool spec.PoolPolicy
	if err := json.Unmarshal([]byte(poolRef), &onPool); err != nil {
		return nil, fmt.Errorf("node_pool %s: %w", poolRef, err)
	}
	onPool = pool.CanonicalPool(onPool)
	w, diags := pool.Apply(Workload(name, namespace), onPool)
	if diags.HasError() {
		return nil, fmt.Errorf("placing %s on the pool: %s", name, summaries(diags))
	}
	r, diags := workload.ResolveAndRender(w, workload.Options{ServerVersion: version, Pool: &onPool, SkipManifest: true})
	if diags.HasError() || r == nil {
		return nil, fmt.Errorf("rendering %s: %s", name, summaries(diags))
	}
	if DeploymentOf(r) == nil {
		return nil, fmt.Errorf("rendering %s: no Deployment", name)
	}
	return r, nil
}

// DeploymentOf is the Deployment Render rendered (nil for another kind).
func DeploymentOf(r *workload.Rendered) *appsv1.Deployment {
	d, _ := r.Workload().(*appsv1.Deployment)
	return d
}

// HCLObject is the workload's attributes as an HCL object expression, for
// terraform_data's input (the comparable object of the Terraform-core floor).
func HCLObject(namespace, poolRef string) string {
	return fmt.Sprintf(`{
    name      = format(%q, count.index)
    namespace = %q
    cloud     = %q
    replicas  = %d
    image     = %q
    node_pool = %s
    gpu       = { count = %d }
  }`, NameFormat, namespace, Cloud, Replicas, Image, poolRef, GPUCount)
}

func summaries(diags gpudiag.Diagnostics) string {
	parts := make([]string, 0, len(diags))
	for _, d := range diags.Errors() {
		parts = append(parts, d.PathString()+": "+d.Summary+": "+d.Detail)
	}
	return strings.Join(parts, "; ")
}

// DRAPool is Pool(id) handing out its GPUs through DRA
// (gpu_allocation = "dra"): the pool the DRA subject's workloads name, as a
// user on a DRA pool would. Its DeviceClass (DRAPoolClass) is what their
// claims ask for.
func DRAPool(id string) spec.PoolPolicy {
	p := Pool(id)
	p.Name, p.GPUAllocation = "bench-dra-"+id, spec.GPUAllocationDRA
	return p
}

// DRAPoolRef is the node_pool value of the DRA subject.
func DRAPoolRef(id string) string { return PoolJSON(DRAPool(id)) }

// RenderDRAPool is what gpu_node_pool_policy renders for DRAPool(id): its
// node labels, taints and DeviceClass, which the bench applies itself.
func RenderDRAPool(id string) (*spec.PoolRendered, error) {
	r, diags := pool.Render(DRAPool(id))
	if diags.HasError() || r.DeviceClassObject == nil {
		return nil, fmt.Errorf("rendering the DRA pool: %s", summaries(diags))
	}
	return r, nil
}

// RenderDRA renders Workload on DRAPool(id) as gpu_workload's apply does.
func RenderDRA(name, namespace, id string, version *utilversion.Version) (*workload.Rendered, error) {
	return Render(name, namespace, DRAPoolRef(id), version)
}
