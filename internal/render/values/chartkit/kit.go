package chartkit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// PrefixDiags re-roots diagnostics produced for a nested input (a Workload
// built from a deployment block, say) under that block's path.
func PrefixDiags(prefix []any, diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(diags))
	for i, d := range diags {
		d.Path = append(slices.Clone(prefix), d.Path...)
		out[i] = d
	}
	return out
}

// With returns path extended by steps without aliasing path's array, so
// sibling paths built from one prefix never share (and overwrite) elements.
func With(path []any, steps ...any) []any {
	return append(slices.Clone(path), steps...)
}

// DecodePlain decodes a plain value into a typed API struct.
func DecodePlain(v any, into any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(j, into)
}

// IsExtendedResource: a domain-prefixed resource outside kubernetes.io,
// such as nvidia.com/gpu or nvidia.com/mig-1g.5gb
// (docs/design/kubernetes.md#extended-resources-are-never-overcommitted).
func IsExtendedResource(name string) bool {
	i := strings.IndexByte(name, '/')
	if i <= 0 {
		return false
	}
	domain := name[:i]
	return domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io")
}

// DecodePodPlacement reads nodeSelector, tolerations, affinity and
// resourceClaims of a values block into spec.
func DecodePodPlacement(block map[string]any, spec *corev1.PodSpec) error {
	if err := DecodeField(block, "nodeSelector", &spec.NodeSelector); err != nil {
		return err
	}
	if err := DecodeField(block, "tolerations", &spec.Tolerations); err != nil {
		return err
	}
	if err := DecodeField(block, "affinity", &spec.Affinity); err != nil {
		return err
	}
	return DecodeField(block, "resourceClaims", &spec.ResourceClaims)
}

func DecodeField(block map[string]any, key string, into any) error {
	v, ok := block[key]
	if !ok || v == nil {
		return nil
	}
	if err := DecodePlain(v, into); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func PlainString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func StepsOf(path []string) []any {
	out := make([]any, len(path))
	for i, p := range path {
		out[i] = p
	}
	return out
}

func DecodeOptional(v any, into any) error {
	if v == nil {
		return nil
	}
	return DecodePlain(v, into)
}

// FromSingleKeyMaps reads Flyte's list-of-single-key-maps form (or a plain
// map) into one map.
func FromSingleKeyMaps(v any) (map[string]any, error) {
	out := map[string]any{}
	switch t := v.(type) {
	case nil:
	case map[string]any:
		for k, e := range t {
			out[k] = e
		}
	case []any:
		for i, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("list entry %d is not a map", i)
			}
			for k, x := range m {
				out[k] = x
			}
		}
	default:
		return nil, fmt.Errorf("%T is neither a map nor a list of maps", v)
	}
	return out, nil
}

// AddRequired ANDs a requirement into every required node selector term,
// as propeller's AddRequiredNodeSelectorRequirements does.
func AddRequired(pod *corev1.PodSpec, req corev1.NodeSelectorRequirement) {
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		pod.Affinity = clouds.RequiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req}}})
		return
	}
	terms := pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, req)
	}
}

// DisplayValuesPath renders steps as a values path: a.b["x.y"][0].
func DisplayValuesPath(steps []any) string {
	if len(steps) == 0 {
		return "the top level"
	}
	var b strings.Builder
	for _, s := range steps {
		switch v := s.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(v) + "]")
		case string:
			if strings.ContainsAny(v, "./[]\" ") || v == "" {
				b.WriteString("[" + strconv.Quote(v) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		}
	}
	return b.String()
}
