package workload

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// Validate checks everything that can be checked from configuration alone
// (Resolve, lenient): zero values are treated as unknown, so rules needing
// them are skipped and missing required values are not reported.
func Validate(w spec.Workload) gpudiag.Diagnostics {
	return Resolve(w, nil, false).Findings
}

// ValidateIdentity checks name, namespace, kind, cloud and image, and returns
// the cloud when it is known and valid ("" otherwise).
func ValidateIdentity(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) spec.Cloud {
	validate.RequireSet(diags, strict, w.Name, gpudiag.At("name"), "the object name, a DNS-1123 label such as \"llm-server\"")
	CheckName(w.Name, diags)
	checkNamespace(w, diags)
	validate.RequireOneOf(diags, strict, w.Kind, gpudiag.At("kind"), kinds.Names)
	if w.Kind != "" && !slices.Contains(kinds.Names(), w.Kind) {
		diags.AddError(gpudiag.At("kind"), "Unknown kind",
			strconv.Quote(w.Kind)+" is not a workload kind. Allowed values: "+gpudiag.QuoteList(kinds.Names())+".")
	}
	checkImage(w, strict, diags)
	return validate.Cloud(w.Cloud, strict, diags)
}

// validatePodIdentity is ValidateIdentity for a pod of another resource
// (ResolvePod): its name and namespace are that resource's, checked
// there; the image and the cloud are the pod's.
func validatePodIdentity(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) spec.Cloud {
	checkImage(w, strict, diags)
	return validate.Cloud(w.Cloud, strict, diags)
}

func checkNamespace(w spec.Workload, diags *gpudiag.Diagnostics) {
	if w.Namespace != "" {
		if msgs := names.DNS1123Label(w.Namespace); len(msgs) > 0 {
			diags.AddError(gpudiag.At("namespace"), "Invalid namespace",
				strconv.Quote(w.Namespace)+" is not a valid namespace: "+strings.Join(msgs, "; ")+
					". Allowed: a DNS-1123 label, or leave it unset for \""+spec.DefaultNamespace+"\".")
		}
	}
}

func checkImage(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	validate.RequireSet(diags, strict, w.Image, gpudiag.At("image"), "a container image reference such as \"vllm/vllm-openai:v0.6.0\"")
	if strings.ContainsFunc(w.Image, IsSpace) {
		diags.AddError(gpudiag.At("image"), "Invalid image",
			strconv.Quote(w.Image)+" contains whitespace. Allowed: an image reference such as \"registry/repo:tag\" or \"repo@sha256:...\".")
	}
}

// CheckName checks a workload's (or a chart container's) name, when set.
func CheckName(name string, diags *gpudiag.Diagnostics) {
	if name == "" {
		return
	}
	if msgs := names.DNS1123Label(name); len(msgs) > 0 {
		diags.AddError(gpudiag.At("name"), "Invalid name",
			strconv.Quote(name)+" is not a valid name: "+strings.Join(msgs, "; ")+
				". Allowed: a DNS-1123 label: at most 63 lower-case letters, digits or '-', starting and ending with a letter or digit.")
	}
}

func IsSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// jobBlockLine is where a job block shows in the configuration: its first
// setting (Terraform quotes that line), or the block itself when it is empty.
func jobBlockLine(j *spec.JobControls) []any {
	settings := []struct {
		name string
		set  bool
	}{
		{"backoff_limit", j.BackoffLimit != nil},
		{"active_deadline_seconds", j.ActiveDeadlineSeconds != nil},
		{"ttl_seconds_after_finished", j.TTLSecondsAfterFinished != nil},
		{"completions", j.Completions != nil},
		{"parallelism", j.Parallelism != nil},
	}
	for _, s := range settings {
		if s.set {
			return gpudiag.At("job", s.name)
		}
	}
	return gpudiag.At("job")
}

// validateKindFields checks replicas and the job and cronjob blocks against
// kind, then the kind's own rules. An unset kind ("", unknown at plan time)
// may accept anything.
func validateKindFields(w spec.Workload, strict bool, diags *gpudiag.Diagnostics) {
	k, known := kinds.Lookup(w.Kind)
	// A block is refused on a kind that does not read it, and on a kind the
	// registry does not know (reported on kind).
	rejects := func(attribute string) bool { return w.Kind != "" && (!known || !k.Accepting(attribute)) }
	if known && !k.Accepting(kindkit.AttributeReplicas) && w.Replicas != nil {
		diags.AddError(gpudiag.At("replicas"), "replicas is for deployments",
			"A "+w.Kind+" does not have replicas; its Job runs job.completions pods, job.parallelism at a time. "+
				"Allowed: remove replicas and set job.parallelism, or use kind = \""+kindAccepting(kindkit.AttributeReplicas)+"\".")
	}
	if w.CronJob != nil && rejects(kindkit.BlockCronJob) {
		diags.AddError(gpudiag.At("cronjob"), "cronjob block is for cronjobs",
			"The cronjob block schedules a batch/v1 CronJob, but kind is \""+w.Kind+"\". Allowed: remove the block, "+
				"or use kind = \""+kindAccepting(kindkit.BlockCronJob)+"\".")
	} else if known && k.Validate != nil {
		k.Validate(w, strict, diags)
	}
	if w.UpdateStrategy != "" && !slices.Contains(spec.UpdateStrategyNames(), w.UpdateStrategy) {
		diags.AddError(gpudiag.At("update_strategy"), "Invalid update_strategy",
			"update_strategy is \""+w.UpdateStrategy+"\". Allowed: "+strings.Join(spec.UpdateStrategyNames(), ", ")+".")
	}
	if w.UpdateStrategy != "" && rejects(kindkit.AttributeUpdateStrategy) {
		diags.AddError(gpudiag.At("update_strategy"), "update_strategy is for deployments",
			"update_strategy sets a Deployment's update strategy, but kind is \""+w.Kind+"\". "+
				"Allowed: remove update_strategy, or use kind = \""+kindAccepting(kindkit.AttributeUpdateStrategy)+"\".")
	}
	if w.Replicas != nil && *w.Replicas < 0 {
		diags.AddError(gpudiag.At("replicas"), "Invalid replicas",
			"replicas is "+strconv.Itoa(int(*w.Replicas))+". Allowed: 0 or more.")
	}
	if w.Job != nil && rejects(kindkit.BlockJob) {
		line := jobBlockLine(w.Job)
		block := "The job block"
		if len(line) == 1 {
			// Terraform quotes no line for an empty block, only the
			// resource, so the message names it.
			block = "The empty job {} block"
		}
		diags.AddError(line, "job block is for jobs",
			block+" configures batch/v1 Job settings, but kind is \""+w.Kind+"\". "+
				"Allowed: remove the job block, or use kind = \""+kindAccepting(kindkit.BlockJob)+"\".")
	}
	if w.Distributed != nil && rejects(kindkit.BlockDistributed) {
		diags.AddError(gpudiag.At("distributed"), "distributed block is for distributed jobs",
			"The distributed block forms one job from several pods (an Indexed Job with a headless Service), but "+
				"kind is \""+w.Kind+"\". Allowed: remove the block, or use kind = \""+kindAccepting(kindkit.BlockDistributed)+"\".")
	}
	if w.Job == nil {
		return
	}
	j := w.Job
	checkMin32(diags, j.BackoffLimit, 0, gpudiag.At("job", "backoff_limit"))
	checkMin32(diags, j.TTLSecondsAfterFinished, 0, gpudiag.At("job", "ttl_seconds_after_finished"))
	checkMin32(diags, j.Completions, 1, gpudiag.At("job", "completions"))
	checkMin32(diags, j.Parallelism, 0, gpudiag.At("job", "parallelism"))
	if j.ActiveDeadlineSeconds != nil && *j.ActiveDeadlineSeconds < 1 {
		diags.AddError(gpudiag.At("job", "active_deadline_seconds"), "Value too small",
			"active_deadline_seconds is "+strconv.FormatInt(*j.ActiveDeadlineSeconds, 10)+". Allowed: 1 or more.")
	}
}

// kindAccepting is the first kind (in the attribute's order) that reads
// the attribute or block, for a message's "use kind = ...".
func kindAccepting(attribute string) string {
	for _, name := range kinds.Names() {
		if k, _ := kinds.Lookup(name); k.Accepting(attribute) {
			return name
		}
	}
	return ""
}

func checkMin32(diags *gpudiag.Diagnostics, v *int32, minimum int32, path []any) {
	validate.Min32(diags, v, minimum, path)
}

// reservedLabels are set by Render; users overriding them would break the
// Deployment selector or the managed-by convention.
var reservedLabels = []string{spec.LabelName, spec.LabelInstance, spec.LabelManagedBy}

func validateMetadata(w spec.Workload, diags *gpudiag.Diagnostics) {
	validateLabels(w.Labels, "labels", diags)
	validateLabels(w.PodLabels, "pod_labels", diags)
	validateSelectorLabels(w.SelectorLabels, diags)
	if w.ContainerName != "" {
		if msgs := names.DNS1123Label(w.ContainerName); len(msgs) > 0 {
			diags.AddError(gpudiag.At("container_name"), "Invalid container name", strconv.Quote(w.ContainerName)+": "+
				strings.Join(msgs, "; ")+". Allowed: a DNS-1123 label: at most 63 lower-case letters, digits or '-', "+
				"starting and ending with a letter or digit.")
		}
	}
	ValidateAnnotations(w.Annotations, "annotations", diags)
	ValidateAnnotations(w.PodAnnotations, "pod_annotations", diags)
}

// validateSelectorLabels: any valid labels, the provider's own included
// (they are the default selector), but not the managed-by label, which
// marks objects rather than pods of one workload.
func validateSelectorLabels(labels map[string]string, diags *gpudiag.Diagnostics) {
	for _, key := range validate.SortedKeys(labels) {
		if key == spec.LabelManagedBy {
			diags.AddError(gpudiag.At("selector_labels", gpudiag.MapKey(key)), "Reserved label",
				strconv.Quote(key)+" is on every object the provider manages and "+
					"cannot tell one workload's pods from another's. Allowed: any other label key.")
			continue
		}
		checkLabel(key, labels[key], "selector_labels", diags)
	}
}

func validateLabels(labels map[string]string, attribute string, diags *gpudiag.Diagnostics) {
	for _, key := range validate.SortedKeys(labels) {
		if slices.Contains(reservedLabels, key) {
			diags.AddError(gpudiag.At(attribute, gpudiag.MapKey(key)), "Reserved label",
				strconv.Quote(key)+" is set by the provider (selector and ownership labels). Allowed: any label key except "+
					gpudiag.QuoteList(reservedLabels)+".")
			continue
		}
		checkLabel(key, labels[key], attribute, diags)
	}
}

// checkLabel checks one entry of a label map attribute. Its path is built
// only for a finding: a map key's path costs allocations.
func checkLabel(key, value, attribute string, diags *gpudiag.Diagnostics) {
	if msgs := names.LabelKey(key); len(msgs) > 0 {
		diags.AddError(gpudiag.At(attribute, gpudiag.MapKey(key)), "Invalid label key", strconv.Quote(key)+": "+strings.Join(msgs, "; ")+
			". Allowed: an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.'.")
	}
	if msgs := names.LabelValue(value); len(msgs) > 0 {
		diags.AddError(gpudiag.At(attribute, gpudiag.MapKey(key)), "Invalid label value", strconv.Quote(value)+": "+strings.Join(msgs, "; ")+
			". Allowed: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty.")
	}
}

func ValidateAnnotations(annotations map[string]string, attribute string, diags *gpudiag.Diagnostics) {
	for _, key := range validate.SortedKeys(annotations) {
		if msgs := names.LabelKey(strings.ToLower(key)); len(msgs) > 0 {
			diags.AddError(gpudiag.At(attribute, gpudiag.MapKey(key)), "Invalid annotation key", strconv.Quote(key)+": "+strings.Join(msgs, "; ")+
				". Allowed: an optional DNS subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_' or '.'.")
		}
	}
}

// deviceVisibilityEnv are set per container by the device plugin from the
// GPUs it allocated; a hand-set value hides or exposes the wrong devices.
var deviceVisibilityEnv = []string{"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"}

// validateSecretEnv checks Secret references; values are never seen.
func validateSecretEnv(w spec.Workload, diags *gpudiag.Diagnostics) {
	for _, name := range validate.SortedKeys(w.SecretEnv) {
		path := gpudiag.At("secret_env", gpudiag.MapKey(name))
		ref := w.SecretEnv[name]
		validate.EnvVarName(diags, name, path)
		if _, both := w.Env[name]; both {
			diags.AddError(path, "Variable set twice", strconv.Quote(name)+" is in both env and secret_env. Allowed: one of them.")
		}
		if ref.Name != "" {
			if msgs := names.DNS1123Subdomain(ref.Name); len(msgs) > 0 {
				diags.AddError(path, "Invalid Secret name", strconv.Quote(ref.Name)+": "+strings.Join(msgs, "; ")+
					". Allowed: a DNS-1123 subdomain such as \"model-credentials\".")
			}
		}
		if ref.Key != "" {
			if msgs := validation.IsConfigMapKey(ref.Key); len(msgs) > 0 {
				diags.AddError(path, "Invalid Secret key", strconv.Quote(ref.Key)+": "+strings.Join(msgs, "; ")+
					". Allowed: letters, digits, '-', '_' and '.'.")
			}
		}
	}
}

// checkEnv checks the container's variables, and asks the cloud's workload
// rules about each (WorkloadRules.CheckEnv: a variable undoing its driver
// setup). An unknown cloud's rules warn about nothing.
func checkEnv(env map[string]string, cloud clouds.WorkloadRules, diags *gpudiag.Diagnostics) {
	for _, name := range validate.SortedKeys(env) {
		path := gpudiag.At("env", gpudiag.MapKey(name))
		validate.EnvVarName(diags, name, path)
		if slices.Contains(deviceVisibilityEnv, name) {
			diags.AddWarning(path, name+" is managed by the device plugin",
				"The NVIDIA device plugin sets "+name+" to the GPUs allocated to this container; a fixed value can point "+
					"at devices the container does not own. Allowed: leave it unset and size the request with gpu.count.")
		}
		cloud.CheckEnv(name, env[name], path, diags)
	}
}

// validatePodSettings checks what a workload's pod has beyond its GPU
// container: Secret env, ports and the names it references.
func validatePodSettings(w spec.Workload, diags *gpudiag.Diagnostics) {
	validateSecretEnv(w, diags)
	seen := map[int32]int{}
	for i, port := range w.Ports {
		if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
			diags.AddError(gpudiag.At("ports", i), "Invalid port", strconv.Itoa(int(port))+": "+strings.Join(msgs, "; ")+".")
			continue
		}
		if first, dup := seen[port]; dup {
			diags.AddError(gpudiag.At("ports", i), "Duplicate port",
				"Port "+strconv.Itoa(int(port))+" is already listed at ports["+strconv.Itoa(first)+"]. Allowed: each port once.")
		}
		seen[port] = i
	}
	checkSubdomain(w.ServiceAccountName, gpudiag.At("service_account_name"), "service account name", diags)
	checkSubdomain(w.PriorityClassName, gpudiag.At("priority_class_name"), "priority class name", diags)
	for i, name := range w.ImagePullSecrets {
		checkSubdomain(name, gpudiag.At("image_pull_secrets", i), "Secret name", diags)
		if name == "" {
			diags.AddError(gpudiag.At("image_pull_secrets", i), "Empty Secret name", "Allowed: the name of a Secret "+
				"of type kubernetes.io/dockerconfigjson in the workload's namespace.")
		}
	}
}

// checkSubdomain: names of other objects the pod refers to are DNS-1123
// subdomains; "" means unset.
func checkSubdomain(name string, path []any, what string, diags *gpudiag.Diagnostics) {
	if name == "" {
		return
	}
	if msgs := names.DNS1123Subdomain(name); len(msgs) > 0 {
		diags.AddError(path, "Invalid "+what, strconv.Quote(name)+": "+strings.Join(msgs, "; ")+". Allowed: a DNS-1123 subdomain.")
	}
}

func checkSizing(w Container, in clouds.GPUIntent, diags *gpudiag.Diagnostics) {
	if w.Size != "" {
		if _, ok := LookupSize(w.Size); !ok {
			diags.AddError(gpudiag.At("size"), "Unknown size",
				strconv.Quote(w.Size)+" is not a sizing preset. Allowed values: "+gpudiag.QuoteList(SizeNames())+
					", or leave it unset to size from the accelerator.")
		}
	}
	CheckQuantity(diags, w.CPU, gpudiag.At("cpu"), MaxCPU, "a CPU quantity such as \"8\" or \"7500m\"")
	CheckQuantity(diags, w.Memory, gpudiag.At("memory"), MaxMemory, "a memory quantity such as \"32Gi\"")
	shm, shmOK := CheckQuantity(diags, w.ShmSize, gpudiag.At("shm_size"), MaxMemory, "a memory quantity such as \"8Gi\"")
	if !shmOK || w.ShmSize == "" {
		return
	}
	// The pod's memory is computable only when count (or an explicit
	// memory) is known.
	if in.Count == 0 && w.Memory == "" {
		return
	}
	if _, memory, ok := containerSizing(w, in); ok && shm.Cmp(memory) > 0 {
		diags.AddWarning(gpudiag.At("shm_size"), "shm_size exceeds the memory limit",
			"/dev/shm is memory-backed and counts against the container's memory limit of "+memory.String()+
				"; filling "+shm.String()+" would get the container OOM-killed. Allowed: shm_size at most memory "+
				"(raise memory or size, or lower shm_size).")
	}
}

// Upper bounds for quantities. They are far above any GPU machine (the
// largest, e.g. GKE a4-highgpu-8g, have ~224 vCPU and ~4 TB), so a larger
// value is a typo that could never schedule; bounding it also keeps
// pathological inputs such as "1e1000000" out of the manifest.
var (
	MaxCPU    = resource.MustParse("1024")
	MaxMemory = resource.MustParse("16Ti")
	// 1Pi, built as an integer: parsed, it is kept as a big decimal, and
	// comparing every model cache size with it went through big-number
	// arithmetic. It prints as "1Pi" all the same.
	maxStorage = *resource.NewQuantity(1<<50, resource.BinarySI)
)

// CheckQuantity parses an optional positive quantity up to maximum; "" is
// unset/unknown.
func CheckQuantity(diags *gpudiag.Diagnostics, raw string, path []any, maximum resource.Quantity, allowed string) (resource.Quantity, bool) {
	if raw == "" {
		return resource.Quantity{}, true
	}
	q, err := resource.ParseQuantity(raw)
	if err != nil {
		diags.AddError(path, "Invalid quantity",
			strconv.Quote(raw)+" is not a Kubernetes quantity ("+err.Error()+"). Allowed: "+allowed+".")
		return q, false
	}
	if q.Sign() <= 0 {
		diags.AddError(path, "Quantity must be positive", strconv.Quote(raw)+" is not greater than zero. Allowed: "+allowed+".")
		return q, false
	}
	if q.Cmp(maximum) > 0 {
		diags.AddError(path, "Quantity too large", strconv.Quote(raw)+" is more than any machine provides. Allowed: "+
			allowed+", at most "+maximum.String()+".")
		return q, false
	}
	return q, true
}
