package values

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// TestValuesPodFragmentsAreValid assembles the pods every golden case's
// values produce and checks what the API server would reject, without
// k8s.io/kubernetes: GPU requests equal integer limits, well-formed
// tolerations, string node selector values that are valid labels, valid
// node affinity, and claims that exist. The acceptance tests server-side
// dry-run the same PodFragments against a real API server.
func TestValuesPodFragmentsAreValid(t *testing.T) {
	for _, c := range valuesCases() {
		if c.wantError {
			continue
		}
		values := mustGenerate(t, c.target, c.input)
		pods, err := PodFragments(c.target, values)
		if err != nil {
			t.Fatalf("%s: %v", c.path(), err)
		}
		if len(pods) == 0 {
			t.Fatalf("%s: no pods", c.path())
		}
		gpu := false
		for i, pod := range pods {
			for _, problem := range valuesPodProblems(pod) {
				t.Errorf("%s pod %d: %s", c.path(), i, problem)
			}
			gpu = gpu || podRequestsExtended(pod) || len(pod.ResourceClaims) > 0
		}
		if !gpu && c.target != TargetGPUOperator && c.target != TargetNvidiaDevicePlugin {
			t.Errorf("%s: no pod requests a GPU", c.path())
		}
	}
}

// valuesPodProblems lists what core/v1 validation would reject.
func valuesPodProblems(pod corev1.PodSpec) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, c := range pod.Containers {
		if msgs := validation.IsDNS1123Label(c.Name); len(msgs) > 0 || c.Image == "" {
			add("container %q image %q: %v", c.Name, c.Image, msgs)
		}
		for name, limit := range c.Resources.Limits {
			if !chartkit.IsExtendedResource(string(name)) {
				continue
			}
			if limit.MilliValue()%1000 != 0 || limit.Sign() <= 0 {
				add("%s limit %s must be a positive integer", name, limit.String())
			}
			if req, ok := c.Resources.Requests[name]; ok && !req.Equal(limit) {
				add("%s request %s must equal limit %s", name, req.String(), limit.String())
			}
		}
		for name := range c.Resources.Requests {
			if _, ok := c.Resources.Limits[name]; chartkit.IsExtendedResource(string(name)) && !ok {
				add("%s requested without a limit", name)
			}
		}
		for _, claim := range c.Resources.Claims {
			if !slices.ContainsFunc(pod.ResourceClaims, func(p corev1.PodResourceClaim) bool { return p.Name == claim.Name }) {
				add("claim %q must be one of the names in pod.spec.resourceClaims", claim.Name)
			}
		}
		for _, e := range c.Env {
			if msgs := validation.IsEnvVarName(e.Name); len(msgs) > 0 {
				add("env %q: %v", e.Name, msgs)
			}
		}
	}
	for k, v := range pod.NodeSelector {
		if msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(msgs) > 0 {
			add("nodeSelector %s=%s: %v", k, v, msgs)
		}
	}
	var diags gpudiag.Diagnostics
	chartkit.CheckValuesTolerations(gpudiag.At("tolerations"), pod.Tolerations, &diags)
	for _, d := range diags {
		add("%s", d.String())
	}
	if a := pod.Affinity; a != nil && a.NodeAffinity != nil {
		if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			if len(r.NodeSelectorTerms) == 0 {
				add("required node affinity without terms")
			}
			for _, term := range r.NodeSelectorTerms {
				for _, req := range term.MatchExpressions {
					out = append(out, requirementProblems(req)...)
				}
			}
		}
		for _, p := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if p.Weight < 1 || p.Weight > 100 {
				add("preference weight %d", p.Weight)
			}
		}
	}
	return out
}

func requirementProblems(req corev1.NodeSelectorRequirement) []string {
	var out []string
	if msgs := validation.IsQualifiedName(req.Key); len(msgs) > 0 {
		out = append(out, "requirement key "+req.Key+": "+strings.Join(msgs, "; "))
	}
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			out = append(out, req.Key+": "+string(req.Operator)+" needs values")
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			out = append(out, req.Key+": "+string(req.Operator)+" takes no values")
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			out = append(out, req.Key+": "+string(req.Operator)+" takes one value")
		}
	default:
		out = append(out, req.Key+": unknown operator "+strconv.Quote(string(req.Operator)))
	}
	return out
}

func TestPodFragmentsRejectsBadShapes(t *testing.T) {
	if _, err := PodFragments("helm", nil); err == nil {
		t.Fatal("unknown target")
	}
	bad := []struct {
		target string
		values map[string]any
	}{
		{TargetFiftyOne, map[string]any{"delegatedOperatorDeployments": map[string]any{"deployments": "x"}}},
		{TargetFiftyOne, map[string]any{"delegatedOperatorDeployments": map[string]any{"deployments": map[string]any{"a": map[string]any{"tolerations": "x"}}}}},
		{TargetFlyteCore, map[string]any{}},
		{TargetFlyteBinary, map[string]any{"configuration": map[string]any{"inline": map[string]any{"plugins": map[string]any{"k8s": map[string]any{"resource-tolerations": "x"}}}}}},
		{TargetGPUOperator, map[string]any{"daemonsets": map[string]any{"tolerations": map[string]any{}}}},
		{TargetNvidiaDevicePlugin, map[string]any{"affinity": []any{}}},
		{TargetNumaflow, map[string]any{"udf": map[string]any{"container": map[string]any{"resources": "x"}}}},
	}
	for _, b := range bad {
		if _, err := PodFragments(b.target, b.values); err == nil {
			t.Errorf("%s %v: want an error", b.target, b.values)
		}
	}
}

// TestPlacementAgreement: for every cloud and every accelerator it offers,
// a gpu_workload, a FiftyOne deployment and a Numaflow vertex get the same
// node selector, affinity and tolerations, and Flyte selects the same
// accelerator label value and tolerates at least the same taints.
func TestPlacementAgreement(t *testing.T) {
	for _, resolved := range clouds.All() {
		cloud, cloudName := resolved.Name(), string(resolved.Name())
		for _, a := range resolved.Models() {
			accel := a.Name
			// The smallest machine's count: Autopilot takes no other
			// (B200 comes in 8-GPU machines only).
			count := int64(1)
			if counts := clouds.GPUCounts(resolved.MachinesOf(a)); len(counts) > 0 {
				count = counts[0]
			}
			g := spec.GPU{Count: count, Accelerator: accel}
			w := spec.Workload{Name: "w", Kind: spec.KindDeployment, Cloud: cloudName, Image: "img", GPU: g}
			r, diags := workload.ResolveAndRender(w, workload.Options{})
			rendertest.RequireNoErrors(t, diags)
			want := r.PodTemplate().Spec

			fo := mustGenerate(t, TargetFiftyOne, fiftyOneInput(cloud, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpu", GPU: &g}}))
			nf := mustGenerate(t, TargetNumaflow, Input{Cloud: cloudName, Blocks: map[string]any{numaflow.Block: &numaflow.Values{GPU: g}}})
			for name, values := range map[string]map[string]any{TargetFiftyOne: fo, TargetNumaflow: nf} {
				pods, err := PodFragments(name, values)
				if err != nil || len(pods) != 1 {
					t.Fatalf("%s %s %s: %v", name, cloud, accel, err)
				}
				got := pods[0]
				if !reflect.DeepEqual(got.NodeSelector, want.NodeSelector) || !reflect.DeepEqual(got.Affinity, want.Affinity) ||
					!reflect.DeepEqual(got.Tolerations, want.Tolerations) {
					t.Errorf("%s on %s with %s disagrees with gpu_workload:\n got %v %v %v\nwant %v %v %v", name, cloud, accel,
						got.NodeSelector, got.Affinity, got.Tolerations, want.NodeSelector, want.Affinity, want.Tolerations)
				}
			}
			checkFlyteAgrees(t, cloud, accel, want)
		}
	}
}

// checkFlyteAgrees simulates propeller for a task asking for accel through
// Flyte v2's accelerator-devices.
func checkFlyteAgrees(t *testing.T, cloud spec.Cloud, accel string, want corev1.PodSpec) {
	t.Helper()
	if len(flyte.V2AcceleratorNames[accel]) == 0 {
		return // Flyte has no name for it (a30)
	}
	values := mustGenerate(t, TargetFlyteBinary, Input{Cloud: string(cloud), Blocks: map[string]any{flyte.Block: &flyte.Values{FlyteVersion: 2, Accelerators: []string{accel}}}})
	pods, err := PodFragments(TargetFlyteBinary, values)
	if err != nil || len(pods) < 2 {
		t.Fatalf("flyte %s %s: %d pods, %v", cloud, accel, len(pods), err)
	}
	task := pods[1] // the task with a device
	req := task.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0]
	if !acceptsLabel(want, req.Key, req.Values[0]) {
		t.Errorf("flyte on %s: %s=%s is not what gpu_workload selects for %s (%v %v)", cloud, req.Key, req.Values[0], accel, want.NodeSelector, want.Affinity)
	}
	for _, tol := range want.Tolerations {
		if !slices.Contains(task.Tolerations, tol) {
			t.Errorf("flyte on %s: task lacks toleration %v of gpu_workload", cloud, tol)
		}
	}
}

// acceptsLabel: the pod selects key=value through nodeSelector or a
// required In requirement.
func acceptsLabel(pod corev1.PodSpec, key, value string) bool {
	if pod.NodeSelector[key] == value {
		return true
	}
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchExpressions {
			if r.Key == key && r.Operator == corev1.NodeSelectorOpIn && slices.Contains(r.Values, value) {
				return true
			}
		}
	}
	return false
}
