package values

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PodFragments assembles, for a target, the pod specs its values will
// produce once the chart (or Numaflow, or flytepropeller) applies them:
// FiftyOne's delegated-operator Deployments and Job templates, a Flyte GPU
// task (plain, per configured device, unpartitioned, interruptible), the
// GPU Operator's operand and NFD worker DaemonSet pods, the device plugin
// DaemonSet pod, the Numaflow UDF pods. Only what the values carry is
// filled in (images the chart chooses are valuesPlaceholderImage), so the
// specs can be validated, or server-side dry-run, to prove the GPU settings
// are well-formed. It errors when the values do not have the target's
// shape.
func PodFragments(target string, values map[string]any) ([]corev1.PodSpec, error) {
	switch target {
	case TargetFiftyOne:
		return fiftyOnePods(values)
	case TargetFlyteCore, TargetFlyteBinary:
		return flytePods(target, values)
	case TargetGPUOperator:
		return gpuOperatorPods(values)
	case TargetNvidiaDevicePlugin:
		return devicePluginPods(values)
	case TargetNumaflow:
		return numaflowPods(values)
	}
	return nil, fmt.Errorf("unknown target %q; allowed values: %s", target, gpudiag.QuoteList(TargetNames()))
}

func fiftyOnePods(values map[string]any) ([]corev1.PodSpec, error) {
	var pods []corev1.PodSpec
	for _, section := range []struct {
		path []string
		job  bool
	}{
		{[]string{"delegatedOperatorDeployments", "deployments"}, false},
		{[]string{"delegatedOperatorJobTemplates", "jobs"}, true},
	} {
		raw, _ := GetPath(values, section.path...)
		entries, ok := raw.(map[string]any)
		if raw != nil && !ok {
			return nil, fmt.Errorf("%s is not a map", displayValuesPath(stepsOf(section.path)))
		}
		for _, key := range slices.Sorted(maps.Keys(entries)) {
			entry, ok := entries[key].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.%s is not a map", displayValuesPath(stepsOf(section.path)), key)
			}
			spec, err := fiftyOnePod(key, entry, section.job)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			pods = append(pods, spec)
		}
	}
	return pods, nil
}

// fiftyOnePod mirrors the chart's templates: the Deployment's container is
// named kebabcase(key), a job's "executor" with restartPolicy Never.
func fiftyOnePod(key string, entry map[string]any, job bool) (corev1.PodSpec, error) {
	var spec corev1.PodSpec
	if err := decodePodPlacement(entry, &spec); err != nil {
		return spec, err
	}
	c := corev1.Container{Name: KebabCase(key), Image: fiftyOneImage(entry)}
	if job {
		c.Name = "executor"
		spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if err := decodeField(entry, "resources", &c.Resources); err != nil {
		return spec, err
	}
	env, _ := entry["env"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(env)) {
		c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: plainString(env[name])})
	}
	spec.Containers = []corev1.Container{c}
	return spec, nil
}

func fiftyOneImage(entry map[string]any) string {
	repo, _ := GetPath(entry, "image", "repository")
	tag, _ := GetPath(entry, "image", "tag")
	r, _ := repo.(string)
	t, _ := tag.(string)
	switch {
	case r == "":
		return valuesPlaceholderImage
	case t == "":
		return r
	}
	return r + ":" + t
}

// decodePodPlacement reads nodeSelector, tolerations, affinity and
// resourceClaims of a values block into spec.
func decodePodPlacement(block map[string]any, spec *corev1.PodSpec) error {
	if err := decodeField(block, "nodeSelector", &spec.NodeSelector); err != nil {
		return err
	}
	if err := decodeField(block, "tolerations", &spec.Tolerations); err != nil {
		return err
	}
	if err := decodeField(block, "affinity", &spec.Affinity); err != nil {
		return err
	}
	return decodeField(block, "resourceClaims", &spec.ResourceClaims)
}

func decodeField(block map[string]any, key string, into any) error {
	v, ok := block[key]
	if !ok || v == nil {
		return nil
	}
	if err := DecodePlain(v, into); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func plainString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func stepsOf(path []string) []any {
	out := make([]any, len(path))
	for i, p := range path {
		out[i] = p
	}
	return out
}

// flytePods simulates flytepropeller for a one-GPU task (docs/design/flyte.md#how-propeller-places-a-gpu-task):
// the GPU resource with equal request, resource-tolerations of it,
// default-tolerations and default-node-selector; then the same task per
// configured device (required node affinity and toleration on the device
// label), unpartitioned, and interruptible.
func flytePods(target string, values map[string]any) ([]corev1.PodSpec, error) {
	raw, _ := GetPath(values, FlytePluginPath(target)...)
	k8s, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a map", displayValuesPath(stepsOf(FlytePluginPath(target))))
	}
	cfg, err := readFlyteConfig(k8s)
	if err != nil {
		return nil, err
	}
	base := cfg.basePod()
	pods := []corev1.PodSpec{base}
	for _, device := range cfg.devices {
		pod := *base.DeepCopy()
		addRequired(&pod, corev1.NodeSelectorRequirement{Key: cfg.deviceLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{device}})
		pod.Tolerations = append(pod.Tolerations, clouds.TolerateEqual(cfg.deviceLabel, device))
		pods = append(pods, pod)
	}
	if cfg.unpartitioned != nil {
		pod := *base.DeepCopy()
		addRequired(&pod, *cfg.unpartitioned)
		pods = append(pods, pod)
	}
	if cfg.interruptible != nil {
		pod := *base.DeepCopy()
		addRequired(&pod, *cfg.interruptible)
		pod.Tolerations = append(pod.Tolerations, cfg.interruptibleTolerations...)
		pods = append(pods, pod)
	}
	return pods, nil
}

// flyteConfig is the part of the k8s plugin config a GPU task depends on.
type flyteConfig struct {
	resourceName             string
	tolerations              map[string][]corev1.Toleration
	defaultTolerations       []corev1.Toleration
	defaultNodeSelector      map[string]string
	deviceLabel              string
	devices                  []string
	unpartitioned            *corev1.NodeSelectorRequirement
	interruptible            *corev1.NodeSelectorRequirement
	interruptibleTolerations []corev1.Toleration
}

func readFlyteConfig(k8s map[string]any) (flyteConfig, error) {
	cfg := flyteConfig{resourceName: string(clouds.ResourceNvidiaGPU), tolerations: map[string][]corev1.Toleration{}}
	class := map[string]any{}
	if classes, err := fromSingleKeyMaps(k8s[flyteKeyAcceleratorDeviceClass]); err != nil {
		return cfg, err
	} else if c, ok := classes[flyteNvidiaDeviceClass].(map[string]any); ok {
		class = c
	}
	pick := func(v1Key, v2Key string) any {
		if v, ok := class[v2Key]; ok {
			return v
		}
		return k8s[v1Key]
	}
	if s, ok := pick(flyteKeyGPUResourceName, "resource-name").(string); ok && s != "" {
		cfg.resourceName = s
	}
	cfg.deviceLabel, _ = pick(flyteKeyGPUDeviceNodeLabel, "device-node-label").(string)
	if err := decodeOptional(pick(flyteKeyGPUUnpartitionedReq, "unpartitioned-node-selector-requirement"), &cfg.unpartitioned); err != nil {
		return cfg, err
	}
	byResource, err := fromSingleKeyMaps(k8s[flyteKeyResourceTolerations])
	if err != nil {
		return cfg, err
	}
	for name, v := range byResource {
		var ts []corev1.Toleration
		if err := DecodePlain(v, &ts); err != nil {
			return cfg, fmt.Errorf("%s[%s]: %w", flyteKeyResourceTolerations, name, err)
		}
		cfg.tolerations[name] = ts
	}
	if err := decodeOptional(k8s[flyteKeyDefaultTolerations], &cfg.defaultTolerations); err != nil {
		return cfg, err
	}
	selector, err := fromSingleKeyMaps(k8s[flyteKeyDefaultNodeSelector])
	if err != nil {
		return cfg, err
	}
	if err := DecodePlain(selector, &cfg.defaultNodeSelector); err != nil {
		return cfg, err
	}
	devices, err := fromSingleKeyMaps(k8s[flyteKeyAcceleratorDevices])
	if err != nil {
		return cfg, err
	}
	for _, name := range slices.Sorted(maps.Keys(devices)) {
		if d, ok := devices[name].(string); ok && !slices.Contains(cfg.devices, d) && cfg.deviceLabel != "" {
			cfg.devices = append(cfg.devices, d)
		}
	}
	if err := decodeOptional(k8s[flyteKeyInterruptibleReq], &cfg.interruptible); err != nil {
		return cfg, err
	}
	return cfg, decodeOptional(k8s[flyteKeyInterruptibleTolerations], &cfg.interruptibleTolerations)
}

func decodeOptional(v any, into any) error {
	if v == nil {
		return nil
	}
	return DecodePlain(v, into)
}

// fromSingleKeyMaps reads Flyte's list-of-single-key-maps form (or a plain
// map) into one map.
func fromSingleKeyMaps(v any) (map[string]any, error) {
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

func (cfg flyteConfig) basePod() corev1.PodSpec {
	one := *resource.NewQuantity(1, resource.DecimalSI)
	name := corev1.ResourceName(cfg.resourceName)
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "task", Image: valuesPlaceholderImage,
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{name: one}, Requests: corev1.ResourceList{name: one}},
		}},
	}
	pod.Tolerations = append(slices.Clone(cfg.tolerations[cfg.resourceName]), cfg.defaultTolerations...)
	if len(cfg.defaultNodeSelector) > 0 {
		pod.NodeSelector = cfg.defaultNodeSelector
	}
	return pod
}

// addRequired ANDs a requirement into every required node selector term,
// as propeller's AddRequiredNodeSelectorRequirements does.
func addRequired(pod *corev1.PodSpec, req corev1.NodeSelectorRequirement) {
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		pod.Affinity = clouds.RequiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req}}})
		return
	}
	terms := pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, req)
	}
}

func gpuOperatorPods(values map[string]any) ([]corev1.PodSpec, error) {
	var pods []corev1.PodSpec
	for _, p := range []struct {
		name string
		path []string
	}{
		{"operand", []string{"daemonsets", "tolerations"}},
		{"nfd-worker", []string{"node-feature-discovery", "worker", "tolerations"}},
	} {
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: p.name, Image: valuesPlaceholderImage}}}
		if raw, ok := GetPath(values, p.path...); ok {
			if err := DecodePlain(raw, &spec.Tolerations); err != nil {
				return nil, fmt.Errorf("%s: %w", displayValuesPath(stepsOf(p.path)), err)
			}
		}
		pods = append(pods, spec)
	}
	return pods, nil
}

func devicePluginPods(values map[string]any) ([]corev1.PodSpec, error) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "nvidia-device-plugin-ctr", Image: valuesPlaceholderImage}}}
	if err := decodePodPlacement(values, &spec); err != nil {
		return nil, err
	}
	return []corev1.PodSpec{spec}, nil
}

// numaflowPods finds the GPU vertex: in a fragment, a Pipeline's vertices,
// a MonoVertex spec, or a List holding one of them.
func numaflowPods(values map[string]any) ([]corev1.PodSpec, error) {
	var blocks []map[string]any
	collectNumaflowBlocks(values, &blocks)
	var pods []corev1.PodSpec
	for i, b := range blocks {
		spec, err := numaflowPod(b)
		if err != nil {
			return nil, fmt.Errorf("vertex %d: %w", i, err)
		}
		pods = append(pods, spec)
	}
	return pods, nil
}

func collectNumaflowBlocks(obj map[string]any, out *[]map[string]any) {
	switch obj["kind"] {
	case "List":
		items, _ := obj["items"].([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				collectNumaflowBlocks(m, out)
			}
		}
	case "Pipeline":
		vertices, _ := GetPath(obj, "spec", "vertices")
		list, _ := vertices.([]any)
		for _, v := range list {
			if m, ok := v.(map[string]any); ok && m["udf"] != nil {
				*out = append(*out, m)
			}
		}
	case "MonoVertex":
		if spec, ok := obj["spec"].(map[string]any); ok {
			*out = append(*out, spec)
		}
	case nil:
		if obj["udf"] != nil {
			*out = append(*out, obj)
		}
	}
}

func numaflowPod(block map[string]any) (corev1.PodSpec, error) {
	var spec corev1.PodSpec
	if err := decodePodPlacement(block, &spec); err != nil {
		return spec, err
	}
	raw, _ := GetPath(block, "udf", "container")
	container, _ := raw.(map[string]any)
	c := corev1.Container{Name: "udf", Image: valuesPlaceholderImage}
	if image, ok := container["image"].(string); ok && image != "" {
		c.Image = image
	}
	if err := decodeField(container, "resources", &c.Resources); err != nil {
		return spec, err
	}
	if err := decodeField(container, "env", &c.Env); err != nil {
		return spec, err
	}
	spec.Containers = []corev1.Container{c}
	return spec, nil
}
