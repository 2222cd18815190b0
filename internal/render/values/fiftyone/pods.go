package fiftyone

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func Pods(values map[string]any) ([]corev1.PodSpec, error) {
	var pods []corev1.PodSpec
	for _, section := range []struct {
		path []string
		job  bool
	}{
		{[]string{"delegatedOperatorDeployments", "deployments"}, false},
		{[]string{"delegatedOperatorJobTemplates", "jobs"}, true},
	} {
		raw, _ := chartkit.GetPath(values, section.path...)
		entries, ok := raw.(map[string]any)
		if raw != nil && !ok {
			return nil, fmt.Errorf("%s is not a map", chartkit.DisplayValuesPath(chartkit.StepsOf(section.path)))
		}
		for _, key := range slices.Sorted(maps.Keys(entries)) {
			entry, ok := entries[key].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.%s is not a map", chartkit.DisplayValuesPath(chartkit.StepsOf(section.path)), key)
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
	if err := chartkit.DecodePodPlacement(entry, &spec); err != nil {
		return spec, err
	}
	c := corev1.Container{Name: KebabCase(key), Image: fiftyOneImage(entry)}
	if job {
		c.Name = "executor"
		spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if err := chartkit.DecodeField(entry, "resources", &c.Resources); err != nil {
		return spec, err
	}
	env, _ := entry["env"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(env)) {
		c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: chartkit.PlainString(env[name])})
	}
	spec.Containers = []corev1.Container{c}
	return spec, nil
}

func fiftyOneImage(entry map[string]any) string {
	repo, _ := chartkit.GetPath(entry, "image", "repository")
	tag, _ := chartkit.GetPath(entry, "image", "tag")
	r, _ := repo.(string)
	t, _ := tag.(string)
	switch {
	case r == "":
		return chartkit.PlaceholderImage
	case t == "":
		return r
	}
	return r + ":" + t
}
