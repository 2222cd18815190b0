package placement

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The GPU rules for pods the provider does not own: the pod_placement and
// pod_template functions and the gpu_pod_placement data source all place a
// GPU request exactly as gpu_workload places its gpu block (chartkit's
// placeRequest, the PlaceOnPool that chart values use behind a resolve step
// of its own for the cloud's name), and hand the result back in
// Kubernetes JSON shape, so it drops into a LeaderWorkerSet, a JobSet, a
// RayCluster or Helm values unchanged.

// gpuRequestKeys are the keys a request object may hold: the gpu block of
// gpu_workload (declared once, in gpuintent), plus spot and node_pool,
// which gpu_workload has beside it, and pods (how many pods the job runs,
// for the pool's GPU network, network.go). gpuRequestJSON decodes them;
// TestRequestKeysAreTheGPUBlocks checks it has exactly these.
var gpuRequestKeys = func() []string {
	names, _ := gpuintent.Names()
	return append(names, "spot", "node_pool", "pods")
}()

// gpuRequest is a request object decoded: the GPU, spot, and an optional
// gpu_node_pool_policy's pool (its ref).
type gpuRequest struct {
	GPU      spec.GPU
	Spot     bool
	NodePool *spec.PoolPolicy
	// Pods is how many pods the job runs (default 1): with more than one,
	// a pod on a pool with a GPU network gets its share (network.go).
	Pods int64
}

// gpuRequestJSON mirrors gpuRequestKeys for strict decoding.
type gpuRequestJSON struct {
	Count            int64    `json:"count"`
	Requests         *int64   `json:"requests"`
	Accelerator      string   `json:"accelerator"`
	Accelerators     []string `json:"accelerators"`
	Partition        string   `json:"partition"`
	MIGStrategy      string   `json:"mig_strategy"`
	Sharing          string   `json:"sharing"`
	MaxSharedClients int64    `json:"max_shared_clients"`
	DRA              *struct {
		DeviceClass string   `json:"device_class"`
		Selectors   []string `json:"selectors"`
		MinMemory   string   `json:"min_memory"`
		Same        string   `json:"same"`
	} `json:"dra"`
	Spot     bool             `json:"spot"`
	NodePool *spec.PoolPolicy `json:"node_pool"`
	Pods     int64            `json:"pods"`
}

// gpuRequestFromValue reads a request object (any Terraform object or map
// value) strictly: an unknown key is an error that lists the allowed ones.
func gpuRequestFromValue(v attr.Value) (gpuRequest, error) {
	if plain, err := tfconv.PlainFrom(v); err == nil {
		if m, ok := plain.(map[string]any); ok {
			if _, isString := m["node_pool"].(string); isString {
				return gpuRequest{}, fmt.Errorf("node_pool is a string: it takes the ref of a gpu_node_pool_policy, " +
					"e.g. node_pool = gpu_node_pool_policy.a100.ref, an object with the pool's settings")
			}
		}
	}
	in, m, err := decodeStrictObject[gpuRequestJSON](v, gpuRequestKeys, `{ accelerator = "l4", count = 1 }`)
	if err != nil {
		return gpuRequest{}, err
	}
	if _, ok := m["count"]; !ok {
		return gpuRequest{}, fmt.Errorf("count is required, as in gpu_workload's gpu block, e.g. { count = 1 }")
	}
	if in.NodePool != nil {
		canonical := pool.CanonicalPool(*in.NodePool)
		in.NodePool = &canonical
	}
	g := spec.GPU{Count: in.Count, Requests: in.Requests, Accelerator: in.Accelerator, Accelerators: in.Accelerators,
		Partition: in.Partition, MIGStrategy: in.MIGStrategy, Sharing: in.Sharing, MaxSharedClients: in.MaxSharedClients}
	if in.DRA != nil {
		g.DRA = &spec.DRA{DeviceClass: in.DRA.DeviceClass, Selectors: in.DRA.Selectors, MinMemory: in.DRA.MinMemory, Same: in.DRA.Same}
	}
	if in.Pods < 0 {
		return gpuRequest{}, fmt.Errorf("pods is %d: the pods of the job, at least 1", in.Pods)
	}
	return gpuRequest{GPU: g, Spot: in.Spot, NodePool: in.NodePool, Pods: in.Pods}, nil
}

// decodeStrictObject reads a function or data source argument that must be
// an object with only the keys allowed (example shows one) into T through
// its json tags; it also gives the object's keys as they came.
func decodeStrictObject[T any](v attr.Value, allowed []string, example string) (T, map[string]any, error) {
	var out T
	plain, err := tfconv.PlainFrom(v)
	if err != nil {
		return out, nil, err
	}
	m, ok := plain.(map[string]any)
	if !ok {
		return out, nil, fmt.Errorf("must be an object such as %s, got %T", example, plain)
	}
	for key := range m {
		if !slices.Contains(allowed, key) {
			return out, nil, fmt.Errorf("unknown key %q. Allowed: %s", key, gpudiag.QuoteList(allowed))
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return out, nil, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return out, m, nil
}

// placeRequest places a request on a cloud (and its node pool, if any) with
// gpu_workload's rules. The diagnostics carry gpu_workload's attribute paths
// (gpu.count, spot, node_pool, cloud).
func placeRequest(cloud string, req gpuRequest) (chartkit.ValuesPlacement, gpudiag.Diagnostics) {
	gpuReq := chartkit.GPURequest{Name: "gpu", GPU: req.GPU, Spot: req.Spot}
	placed, diags, ok := chartkit.PlaceRequest(cloud, gpuReq, req.NodePool)
	if !ok && !diags.HasError() {
		diags.AddError(nil, "GPU request cannot be placed", "The request passed validation but could not be placed; this is a bug.")
	}
	if ok && req.NodePool != nil {
		placed.Network, diags = withNetwork(*req.NodePool, req, diags)
	}
	return placed, diags
}

// placementObject is the placement in Kubernetes JSON shape: the pod-level
// fields under their PodSpec names (nodeSelector, affinity, tolerations,
// hostIPC), the container-level ones under "resources" and "env", and with
// DRA the pod's resourceClaims and the ResourceClaimTemplate they name
// (create it beside the pod).
func placementObject(p chartkit.ValuesPlacement) (map[string]any, error) {
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: p.NodeSelector, Affinity: p.Affinity,
		Tolerations: p.Tolerations, HostIPC: p.HostIPC, ResourceClaims: p.Claims,
		Containers: []corev1.Container{{Resources: *p.Resources.DeepCopy(), Env: envList(p.Env)}}}}
	if p.Network != nil {
		workload.AddNetwork(&tmpl, *p.Network)
	}
	container, err := jsonObject(tmpl.Spec.Containers[0])
	if err != nil {
		return nil, err
	}
	out, err := jsonObject(tmpl.Spec)
	if err != nil {
		return nil, err
	}
	delete(out, "containers") // its container's keys come at the top level
	for _, key := range []string{"resources", "env", "volumeMounts", "securityContext"} {
		if v, ok := container[key]; ok {
			out[key] = v
		}
	}
	if len(tmpl.Annotations) > 0 {
		out["annotations"] = tmpl.Annotations
	}
	// Every key is present, empty when the cloud needs nothing there, so
	// configurations can refer to any of them on every cloud. The network's
	// (annotations, initContainers, volumes, volumeMounts, securityContext)
	// are empty but for a request of several pods on a pool with a GPU
	// network (network.go).
	for key, empty := range map[string]any{"nodeSelector": map[string]any{}, "affinity": map[string]any{},
		"tolerations": []any{}, "resources": map[string]any{}, "env": []any{}, "hostIPC": false,
		"annotations": map[string]any{}, "initContainers": []any{}, "volumes": []any{}, "volumeMounts": []any{},
		"securityContext": map[string]any{}} {
		if _, ok := out[key]; !ok {
			out[key] = empty
		}
	}
	if p.ClaimTemplate != nil {
		template, err := jsonObject(p.ClaimTemplate)
		if err != nil {
			return nil, err
		}
		out["resourceClaimTemplate"] = template
	}
	return out, nil
}

// envList is env sorted by name, as EnvVar entries.
func envList(env map[string]string) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, name := range slices.Sorted(maps.Keys(env)) {
		out = append(out, corev1.EnvVar{Name: name, Value: env[name]})
	}
	return out
}

// jsonObject is v as its JSON object (the shape kubectl and the API use),
// without the empty metadata Go's types would add.
func jsonObject(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	if meta, ok := out["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return out, nil
}

// diagnosticsMessage joins error diagnostics into one function error text,
// each with its attribute path: "gpu.count: Too many GPUs: ...".
func diagnosticsMessage(diags gpudiag.Diagnostics) string {
	var parts []string
	for _, d := range diags.Errors() {
		text := d.Summary + ": " + d.Detail
		if p := d.PathString(); p != "" {
			text = p + ": " + text
		}
		parts = append(parts, text)
	}
	// Terraform ends the message with a period of its own.
	return strings.TrimSuffix(strings.Join(parts, "\n"), ".")
}

// dynamicObject is a JSON-shaped object as a Terraform dynamic value.
func dynamicObject(m map[string]any) (types.Dynamic, error) {
	if m == nil {
		return types.DynamicNull(), nil
	}
	return tfconv.DynamicFrom(m)
}
