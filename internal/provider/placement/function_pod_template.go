package placement

import (
	_ "embed"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// templateFunctionDescription is provider::gpu::pod_template's description,
// which opens its docs page.
//
//go:embed function_pod_template.md
var templateFunctionDescription string

// NewPodTemplateFunction returns provider::gpu::pod_template: a whole
// GPU-correct pod template for a manifest the provider does not own.
func NewPodTemplateFunction() function.Function {
	container := function.DynamicParameter{
		Name: "container",
		MarkdownDescription: "The GPU container: an object with " + tfconv.MarkdownList(containerKeys) + " (`image` " +
			"required; `env` a map of strings, over the cloud's driver environment).",
	}
	return newPlacementFunction("pod_template", "A GPU-correct pod template for any manifest", templateFunctionDescription,
		[]function.Parameter{cloudParameter(), gpuParameter(), container},
		func(placed chartkit.ValuesPlacement, container *podContainer) (map[string]any, error) {
			return podTemplateObject(placed, *container)
		})
}

// containerKeys are the keys of the container argument.
var containerKeys = []string{"name", "image", "command", "args", "env"}

// podContainer is the container argument decoded.
type podContainer struct {
	Name    string            `json:"name"`
	Image   string            `json:"image"`
	Command []string          `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// containerFromDynamic reads the container argument strictly.
func containerFromDynamic(v types.Dynamic) (podContainer, error) {
	c, _, err := decodeStrictObject[podContainer](v, containerKeys, `{ name = "vllm", image = "vllm/vllm-openai:v0.6.0" }`)
	if err != nil {
		return podContainer{}, err
	}
	return c, checkContainer(c)
}

// checkContainer: an image is required and the name, when set, is a
// container name.
func checkContainer(c podContainer) error {
	if strings.TrimSpace(c.Image) == "" {
		return fmt.Errorf("image is required, e.g. { image = \"nvcr.io/nvidia/pytorch:24.08-py3\" }")
	}
	if c.Name != "" {
		if msgs := validation.IsDNS1123Label(c.Name); len(msgs) > 0 {
			return fmt.Errorf("name %q: %s. Allowed: a DNS-1123 label such as \"trainer\"", c.Name, strings.Join(msgs, "; "))
		}
	}
	for name := range c.Env {
		if msgs := validation.IsEnvVarName(name); len(msgs) > 0 {
			return fmt.Errorf("env[%q]: %s", name, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// podTemplateObject is a PodTemplateSpec in JSON shape: the container with
// the GPU resources and the cloud's environment (the container's own env
// wins), and the pod-level placement.
func podTemplateObject(p chartkit.ValuesPlacement, c podContainer) (map[string]any, error) {
	name := c.Name
	if name == "" {
		name = "gpu"
	}
	env := maps.Clone(p.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, c.Env)
	pod := corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: name, Image: c.Image, Command: c.Command, Args: c.Args,
			Env: envList(env), Resources: *p.Resources.DeepCopy()}},
		NodeSelector: p.NodeSelector, Affinity: p.Affinity, Tolerations: p.Tolerations, HostIPC: p.HostIPC,
		ResourceClaims: p.Claims,
	}}
	if p.Network != nil {
		// The same merge as gpu_workload's pods (the container's own env
		// and the network's variables under it).
		workload.AddNetwork(&pod, *p.Network)
	}
	spec, err := jsonObject(pod.Spec)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"spec": spec}
	if len(pod.Annotations) > 0 {
		out["metadata"] = map[string]any{"annotations": pod.Annotations}
	}
	return out, nil
}
