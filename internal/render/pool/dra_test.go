package pool

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// draPoolGoldenCases are each cloud's DRA node-pool shape
// (docs/design/dra.md §9), golden like the device-plugin pools.
func draPoolGoldenCases() []poolGoldenCase {
	// Eight GPUs per node: every cloud sells an 8-GPU H100 and A100 machine.
	draPool := func(name, cloud, accelerator string) spec.PoolPolicy {
		return spec.PoolPolicy{Name: name, Cloud: cloud, Accelerator: accelerator, GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}
	}
	mig := draPool("dra-a100-mig", "generic", "a100-40gb")
	mig.Partition = "all-3g.20gb"
	return []poolGoldenCase{
		{"dra-h100", "GKE DRA pool: driver installation disabled, GKE's device plugin off, DRA driver labels, no gke-gpu-driver-version.",
			draPool("h100-dra", "gke", "h100-80gb"), false},
		{"dra-h100", "EKS node group on the AL2023 NVIDIA AMI (no device plugin): nvidia.com/gpu.present for 1.34, device plugin switch off.",
			draPool("h100-dra", "eks", "h100-80gb"), false},
		{"dra-h100", "AKS pool without AKS's driver and device plugin (gpu_driver None, Unmanaged): the GPU Operator's, device plugin off.",
			draPool("h100dra", "aks", "h100-80gb"), false},
		{"dra-h100", "Karpenter NodePool: template labels carry gpu.present and the device plugin switch; warned: v1.15's enableDRA.",
			draPool("h100-dra", "karpenter", "h100-80gb"), true},
		{"dra-h100", "Like the local fixture dra-h100: the GPU Operator's device plugin switched off per node, the pool's DeviceClass.",
			draPool("dra-h100", "generic", "h100-80gb"), false},
		{"dra-a100-mig", "DGX A100 cut into 3g.20gb by mig-manager, served by the DRA driver: the class selects the profile, no strategy.",
			mig, true},
		// The same pools by Kubernetes minor: DRAExtendedResource is off by
		// default before 1.36, so the class carries extendedResourceName
		// (the device plugin's name for the same devices) from 1.36 on.
		{"dra-h100-k8s-1.35", "Kubernetes 1.35 (the cluster's): DRAExtendedResource is alpha and off, so no extendedResourceName.",
			onMinor(draPool("dra-h100", "generic", "h100-80gb"), "1.35"), false},
		{"dra-h100-k8s-1.36", "Kubernetes 1.36 (the cluster's): the class answers to nvidia.com/gpu (DRAExtendedResource beta, on).",
			onMinor(draPool("dra-h100", "generic", "h100-80gb"), "1.36"), false},
		{"dra-h100-k8s-1.37", "Kubernetes 1.37 (the cluster's): the class answers to nvidia.com/gpu (DRAExtendedResource GA).",
			onMinor(draPool("dra-h100", "generic", "h100-80gb"), "1.37"), false},
		{"dra-a100-mig-k8s-1.36", "Kubernetes 1.36: a MIG pool's class answers to the device plugin's mixed name, nvidia.com/mig-3g.20gb.",
			onMinor(mig, "1.36"), true},
	}
}

// onMinor is p judged by a cluster that runs minor.
func onMinor(p spec.PoolPolicy, minor string) spec.PoolPolicy {
	p.Kubernetes = kubever.Version{V: utilversion.MustParseGeneric(minor), Source: kubever.FromCluster}
	return p
}

// The pool's DeviceClass carries extendedResourceName exactly where the
// version has DRAExtendedResource on by default, judged by the floor when
// the version is unknown.
func TestDRAPoolExtendedResourceByVersion(t *testing.T) {
	p := spec.PoolPolicy{Name: "dra", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}
	for minor, want := range map[string]string{"": "", "1.34": "", "1.35": "", "1.36": "nvidia.com/gpu", "1.37": "nvidia.com/gpu", "1.38": "nvidia.com/gpu"} {
		q := p
		if minor != "" {
			q = onMinor(p, minor)
		}
		r, diags := Render(q)
		rendertest.RequireNoErrors(t, diags)
		got := ""
		if n := r.DeviceClassObject.Spec.ExtendedResourceName; n != nil {
			got = *n
		}
		if got != want || r.ExtendedResourceName != want {
			t.Errorf("Kubernetes %q: class extendedResourceName %q, rendered %q, want %q", minor, got, r.ExtendedResourceName, want)
		}
		if want != "" && !strings.Contains(r.DeviceClass, "extendedResourceName: "+want) {
			t.Errorf("Kubernetes %s: YAML lacks the name:\n%s", minor, r.DeviceClass)
		}
	}
	// A device-plugin pool never has one.
	q := onMinor(spec.PoolPolicy{Name: "dp", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}, "1.37")
	if r, _ := Render(q); r == nil || r.ExtendedResourceName != "" || r.DeviceClassObject != nil {
		t.Errorf("device-plugin pool has a class: %+v", r)
	}
}

// TestDRAPoolRefusals: each cloud's refusal and each "one node, one way"
// rule, on the attribute that caused it, saying why.
func TestDRAPoolRefusals(t *testing.T) {
	base := func(cloud string) spec.PoolPolicy {
		return spec.PoolPolicy{Name: "dra", Cloud: cloud, Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}
	}
	with := func(p spec.PoolPolicy, edit func(*spec.PoolPolicy)) spec.PoolPolicy { edit(&p); return p }
	cases := []struct {
		name     string
		pool     spec.PoolPolicy
		path     string
		severity gpudiag.Severity
		says     string
	}{
		{"gke autopilot", base("gke-autopilot"), "gpu_allocation", gpudiag.SeverityError, "Autopilot as unsupported"},
		{"gke partition", with(base("gke"), func(p *spec.PoolPolicy) { p.Partition = "3g.40gb" }), "partition", gpudiag.SeverityError, "gpu_partition_size"},
		{"gke sharing", with(base("gke"), func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = spec.SharingTimeSlicing, 2 }), "sharing", gpudiag.SeverityError, "time-sharing or MPS"},
		{"gke mps", with(base("gke"), func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = spec.SharingMPS, 2 }), "sharing", gpudiag.SeverityError, "gpu_sharing_config"},
		{"eks auto", base("eks-auto"), "gpu_allocation", gpudiag.SeverityError, "1.36"},
		{"karpenter", base("karpenter"), "gpu_allocation", gpudiag.SeverityWarning, "enableDRA"},
		{"mig strategy", with(base("generic"), func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = "3g.40gb", spec.MIGStrategySingle }), "mig_strategy", gpudiag.SeverityError, "over-admits"},
		{"mig strategy without partition", with(base("eks"), func(p *spec.PoolPolicy) { p.MIGStrategy = spec.MIGStrategyMixed }), "mig_strategy", gpudiag.SeverityError, "over-admits"},
		{"sharing", with(base("generic"), func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = spec.SharingTimeSlicing, 4 }), "sharing", gpudiag.SeverityError, "over-admits"},
		{"mps", with(base("aks"), func(p *spec.PoolPolicy) { p.Name, p.Sharing, p.Replicas = "dra1", spec.SharingMPS, 4 }), "sharing", gpudiag.SeverityError, "over-admits"},
		{"replicas", with(base("eks"), func(p *spec.PoolPolicy) { p.Replicas = 4 }), "replicas", gpudiag.SeverityError, "over-admits"},
		{"all-balanced", with(base("generic"), func(p *spec.PoolPolicy) { p.Partition = spec.PartitionAllBalanced }), "partition", gpudiag.SeverityError, "selects one profile"},
		{"unknown allocation", with(base("generic"), func(p *spec.PoolPolicy) { p.GPUAllocation = "cdi" }), "gpu_allocation", gpudiag.SeverityError, "\"device-plugin\", \"dra\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, diags := range []gpudiag.Diagnostics{Validate(c.pool), renderDiags(c.pool)} {
				var at []gpudiag.Diagnostic
				for _, d := range diags {
					if d.PathString() == c.path {
						at = append(at, d)
					}
				}
				if len(at) != 1 || at[0].Severity != c.severity || !strings.Contains(at[0].Detail, c.says) {
					t.Fatalf("want one %v at %s saying %q, got:\n%s", c.severity, c.path, c.says, rendertest.FormatDiags(diags))
				}
			}
		})
	}
}

func renderDiags(p spec.PoolPolicy) gpudiag.Diagnostics {
	_, diags := Render(p)
	return diags
}

// TestDRAPoolAllowed: what a DRA pool may still say (a MIG profile through
// mig-manager off GKE, dedicated, labels and taints) validates.
func TestDRAPoolAllowed(t *testing.T) {
	for _, p := range []spec.PoolPolicy{
		{Name: "mig", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "1g.5gb", GPUAllocation: spec.GPUAllocationDRA},
		{Name: "mig", Cloud: "karpenter", Accelerator: "h100-80gb", GPUsPerNode: 8, Partition: "all-3g.40gb", GPUAllocation: spec.GPUAllocationDRA},
		{Name: "plain", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, GPUAllocation: spec.GPUAllocationDRA,
			Labels: map[string]string{"example.com/team": "ml"}, Taints: []spec.Taint{{Key: "example.com/team", Effect: spec.TaintNoSchedule}}},
		{Name: "plain", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDevicePlugin},
	} {
		if _, diags := Render(p); diags.HasError() {
			t.Errorf("%+v: %s", p, rendertest.FormatDiags(diags))
		}
	}
}

// TestDRAPoolIDCarriesAllocation: the id tells a workload at plan time how
// the pool hands out GPUs, and a device-plugin pool's id is what it was
// before gpu_allocation existed.
func TestDRAPoolIDCarriesAllocation(t *testing.T) {
	p := spec.PoolPolicy{Name: "a", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}
	explicit := p
	explicit.GPUAllocation = spec.GPUAllocationDevicePlugin
	if encodeID(p) != encodeID(explicit) {
		t.Error("gpu_allocation = \"device-plugin\" changes the id")
	}
	p.GPUAllocation = spec.GPUAllocationDRA
	decoded, err := DecodeID(encodeID(p))
	if err != nil || !decoded.UsesDRA() {
		t.Fatalf("decoded %+v, %v: the id lost gpu_allocation", decoded, err)
	}
}

// TestWorkloadOnDRAPool: a workload on a DRA pool asks for its GPUs
// through a claim on the pool's class, with no selector (Kueue counts it),
// requests no nvidia.com/gpu, and still selects and tolerates the pool's
// nodes.
func TestWorkloadOnDRAPool(t *testing.T) {
	p := spec.PoolPolicy{Name: "dra-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}
	w := spec.Workload{Name: "llm", Namespace: "ml", Kind: spec.KindDeployment, Image: "vllm/vllm-openai:v0.6.3",
		GPU: spec.GPU{Count: 2}}
	placed, diags := Apply(w, p)
	rendertest.RequireNoErrors(t, diags)
	r, diags := workload.ResolveAndRender(placed, workload.Options{Pool: &p})
	rendertest.RequireNoErrors(t, diags)
	tmpl := r.ResourceClaimTemplateV1
	if tmpl == nil {
		t.Fatal("no ResourceClaimTemplate")
	}
	want := dra.PoolClaim(p.Name, 2)
	got := tmpl.Spec.Spec.Devices.Requests
	if len(got) != 1 || got[0].Exactly == nil || got[0].Exactly.DeviceClassName != want.Exactly.DeviceClass ||
		got[0].Exactly.Count != 2 || len(got[0].Exactly.Selectors) > 0 {
		t.Fatalf("claim requests %+v, want PoolClaim %+v", got, want)
	}
	pod := r.PodTemplate().Spec
	for _, c := range pod.Containers {
		for name := range c.Resources.Limits {
			if strings.HasPrefix(string(name), "nvidia.com/") {
				t.Errorf("container %s still requests %s", c.Name, name)
			}
		}
	}
	if pod.NodeSelector[spec.LabelDeployDevicePlugin] != "false" {
		t.Errorf("node selector %v does not keep the pod on DRA nodes", pod.NodeSelector)
	}
	if !slices.ContainsFunc(pod.Tolerations, func(tol corev1.Toleration) bool { return tol.Key == "nvidia.com/gpu" }) {
		t.Errorf("tolerations %v do not tolerate the GPU taint", pod.Tolerations)
	}
}
