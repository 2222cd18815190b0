package fiftyone

import (
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Values is the GPU part of the FiftyOne Enterprise chart
// (voxel51/fiftyone-teams-app): delegated-operator Deployments and on-demand
// Job templates (docs/design/fiftyone.md).
type Values struct {
	Deployments  []FiftyOneDeployment `tf:"deployment"`   // deployment (blocks)
	JobTemplates []JobTemplate        `tf:"job_template"` // job_template (blocks)
}

// FiftyOneImage overrides the chart's executor image; empty fields keep the
// chart's (or the template's) value.
type FiftyOneImage struct {
	Repository string // repository
	Tag        string // tag
}

// Runner is what a deployment and a job template share: one delegated
// operator executor's key, image, environment and GPU placement.
type Runner struct {
	// Key is the camelCase chart key. A Deployment is named
	// KebabCase(Key); Jobs are named KebabCase(Key) truncated to 48
	// characters, then "-<operation id>".
	Key     string         // key
	Enabled *bool          // enabled: nil keeps the chart's rule (absent means enabled)
	Image   *FiftyOneImage // image
	// Env is merged over the template's env map; the cloud's driver
	// environment (GKE LD_LIBRARY_PATH) is added under it.
	Env map[string]string // env
	// GPU is nil for a CPU-only runner beside GPU ones.
	GPU *spec.GPU // gpu
	// NodePool places the GPU runner on a gpu_node_pool_policy: unset GPU
	// fields come from the pool, and its extra labels and taints are added.
	NodePool *spec.PoolPolicy // node_pool
	Spot     bool             // spot
	// Size is a GPU sizing preset (SizeNames()); CPU and Memory are totals
	// and override it. Without any of them the template's resources apply.
	Size   string // size
	CPU    string // cpu
	Memory string // memory
}

// FiftyOneDeployment is one entry of
// delegatedOperatorDeployments.deployments.<key>. Unset fields inherit the
// chart's delegatedOperatorDeployments.template.
type FiftyOneDeployment struct {
	Runner
	Replicas    *int32 // replicas: replicaCount, at least 1
	Description string // description
}

// JobTemplate is one entry of delegatedOperatorJobTemplates.jobs.<key>:
// a Job manifest the FiftyOne API launches per operation.
type JobTemplate struct {
	Runner
	BackoffLimit            *int32 // backoff_limit
	ActiveDeadlineSeconds   *int64 // active_deadline_seconds
	TTLSecondsAfterFinished *int32 // ttl_seconds_after_finished
	Parallelism             *int32 // parallelism
}

// FiftyOne chart constants (voxel51/fiftyone-teams-app-deploy, docs/design/fiftyone.md).
const (
	// CPUDefaultKey is the shipped CPU runner; its schema entry is
	// typed from its defaults, so its cpu must stay an integer.
	CPUDefaultKey = "teamsDoCpuDefault"
	// Jobs are named "<kebabcase key | trunc 48>-<id>".
	fiftyOneJobNameMax = 48
)

// fiftyOneEntry is a Runner with where it stands, so one code path
// validates and renders deployments and job templates.
type fiftyOneEntry struct {
	Runner
	path    []any
	kind    string // "deployment" or "job template", for messages
	nameMax int
}

func Generate(cloud clouds.Cloud, in Values, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	deployments := renderEntries(in.Deployments, cloud, strict, &diags,
		func(i int, d FiftyOneDeployment) (fiftyOneEntry, map[string]any) {
			e := fiftyOneEntry{Runner: d.Runner, path: gpudiag.At(Block, "deployment", i), kind: "deployment",
				nameMax: validation.DNS1123LabelMaxLength}
			fields := map[string]any{}
			addDeploymentFields(fields, d, e.path, &diags)
			return e, fields
		})
	jobs := renderEntries(in.JobTemplates, cloud, strict, &diags,
		func(i int, j JobTemplate) (fiftyOneEntry, map[string]any) {
			e := fiftyOneEntry{Runner: j.Runner, path: gpudiag.At(Block, "job_template", i), kind: "job template",
				nameMax: fiftyOneJobNameMax}
			fields := map[string]any{}
			addJobFields(fields, j, e.path, &diags)
			return e, fields
		})
	values := map[string]any{}
	if len(deployments) > 0 {
		values["delegatedOperatorDeployments"] = map[string]any{"deployments": deployments}
	}
	if len(jobs) > 0 {
		values["delegatedOperatorJobTemplates"] = map[string]any{"jobs": jobs}
	}
	return values, diags
}

// renderEntries renders one list of entries (deployments or job templates)
// into chart key → values: entry gives each item's shared part and the
// fields only its kind has. Keys are checked for clashes within the list.
func renderEntries[T any](items []T, cloud clouds.Cloud, strict bool, diags *gpudiag.Diagnostics,
	entry func(i int, item T) (fiftyOneEntry, map[string]any)) map[string]any {
	out := map[string]any{}
	names := map[string]string{}
	for i, item := range items {
		e, fields := entry(i, item)
		if values, ok := e.render(cloud, strict, names, diags); ok {
			maps.Copy(values, fields)
			out[e.Key] = values
		}
	}
	return out
}

// render validates one entry and builds its values; ok is false when the
// entry is invalid or not yet known.
func (e fiftyOneEntry) render(cloud clouds.GPURules, strict bool, names map[string]string, diags *gpudiag.Diagnostics) (map[string]any, bool) {
	before := len(*diags)
	keyOK := e.checkKey(strict, names, diags)
	if e.GPU == nil {
		e.checkCPUOnly(diags)
	} else {
		e.checkChartGPU(diags)
	}
	if !strict {
		if e.NodePool != nil {
			diags.Append(chartkit.PrefixDiags(chartkit.With(e.path, "node_pool"), pool.Validate(*e.NodePool)))
		}
		if e.GPU != nil {
			diags.Append(chartkit.PrefixDiags(e.path, chartkit.ValidateValuesGPU(cloud, e.request())))
		}
		return nil, false
	}
	entry := map[string]any{}
	if e.GPU != nil {
		p, more, ok := chartkit.PlaceOnPool(cloud, e.request(), e.NodePool)
		diags.Append(chartkit.PrefixDiags(e.path, more))
		if !ok || !e.onDRAPool(&p, diags) {
			return nil, false
		}
		if p.HostIPC {
			diags.AddError(chartkit.With(e.path, "gpu", "sharing"), "MPS needs host IPC",
				clouds.GKEMPSHostIPC("the FiftyOne chart")+
					"Allowed: sharing = \""+spec.SharingTimeSlicing+"\", or whole GPUs.")
		}
		e.addPlacement(entry, p, diags)
	} else {
		e.addCPUResources(entry, diags)
	}
	if !keyOK || (*diags)[before:].HasError() {
		return nil, false
	}
	e.addCommon(entry)
	return entry, true
}

func (e fiftyOneEntry) request() chartkit.GPURequest {
	return chartkit.GPURequest{GPU: *e.GPU, Spot: e.Spot, Size: e.Size, CPU: e.CPU, Memory: e.Memory, Env: e.Env}
}

// checkKey: the key names the Kubernetes objects through kebabcase, so the
// result must be a DNS-1123 label, unique, and unsurprising.
func (e fiftyOneEntry) checkKey(strict bool, names map[string]string, diags *gpudiag.Diagnostics) bool {
	path := chartkit.With(e.path, "key")
	validate.RequireSet(diags, strict, e.Key, path, "a camelCase chart key such as \"gpuL4\"")
	if e.Key == "" {
		return false
	}
	name := KebabCase(e.Key)
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 || len(name) > e.nameMax {
		if len(name) > e.nameMax && e.nameMax < validation.DNS1123LabelMaxLength {
			msgs = append(msgs, "must be no more than "+strconv.Itoa(e.nameMax)+" characters")
		}
		diags.AddError(path, "Invalid "+e.kind+" key",
			"The chart names the "+e.kind+" kebabcase("+strconv.Quote(e.Key)+") = "+strconv.Quote(name)+", which "+
				strings.Join(msgs, "; ")+". Allowed: a camelCase key of ASCII letters (and digits) whose kebab-case form is "+
				"at most "+strconv.Itoa(e.nameMax)+" characters, e.g. \"gpuL4\" → \"gpu-l4\".")
		return false
	}
	if other, dup := names[name]; dup {
		diags.AddError(path, "Duplicate "+e.kind+" name",
			"kebabcase("+strconv.Quote(e.Key)+") = "+strconv.Quote(name)+", the same name as key "+strconv.Quote(other)+
				"; the chart would render two objects with one name. Allowed: keys whose kebab-case forms differ.")
		return false
	}
	names[name] = e.Key
	if naive := naiveKebab(e.Key); strings.ContainsAny(e.Key, "0123456789") && naive != name {
		diags.AddWarning(path, "Unexpected "+e.kind+" name",
			"The chart names this "+e.kind+" "+strconv.Quote(name)+", not "+strconv.Quote(naive)+": Helm's kebabcase "+
				"splits digits from the letters around them in ways that are easy to misread. Allowed: keep the key, or "+
				"use letters only (e.g. \"gpuTwoA100\").")
	}
	return true
}

// naiveKebab is what a reader expects kebabcase to do with an ASCII key: a
// dash before an upper-case letter that follows a lower-case letter or a
// digit, or that starts a word after an acronym ("myGPUWorker"), digits
// stuck to the word before them.
func naiveKebab(key string) string {
	var b strings.Builder
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == ' ':
			b.WriteByte('-')
		case isUpper(c):
			afterWord := i > 0 && (isLower(key[i-1]) || isDigit(key[i-1]))
			endsAcronym := i > 0 && isUpper(key[i-1]) && i+1 < len(key) && isLower(key[i+1])
			if afterWord || endsAcronym {
				b.WriteByte('-')
			}
			b.WriteByte(c + ('a' - 'A'))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// onDRAPool: the chart's pods have no resourceClaims, so on a DRA pool
// they ask the extended resource the pool's DeviceClass answers to, where
// the cluster's Kubernetes maps it to a claim (chartkit.DRAPoolResource);
// false after the error where it does not.
func (e fiftyOneEntry) onDRAPool(p *chartkit.ValuesPlacement, diags *gpudiag.Diagnostics) bool {
	if e.NodePool == nil || !e.NodePool.UsesDRA() {
		return true
	}
	name, more, ok := chartkit.DRAPoolResource(*e.NodePool, "FiftyOne", chartkit.With(e.path, "node_pool"))
	diags.Append(more)
	if ok {
		p.RequestExtendedResource(name)
	}
	return ok
}

// checkChartGPU rejects GPU settings the chart has no values for.
func (e fiftyOneEntry) checkChartGPU(diags *gpudiag.Diagnostics) {
	if e.GPU.DRA != nil {
		diags.AddError(chartkit.With(e.path, "gpu", "dra"), "DRA is not supported by the FiftyOne chart",
			"The chart's "+e.kind+" values have no resourceClaims, so a Dynamic Resource Allocation claim cannot be "+
				"attached. Allowed: remove dra to request nvidia.com/gpu through the device plugin.")
	}
}

// checkCPUOnly validates what Render would check for a GPU entry.
func (e fiftyOneEntry) checkCPUOnly(diags *gpudiag.Diagnostics) {
	if e.NodePool != nil {
		diags.AddError(chartkit.With(e.path, "node_pool"), "node_pool needs a gpu block",
			"A node pool places GPU pods, and this "+e.kind+" has no gpu block. Allowed: add a gpu block (at least "+
				"count), or remove node_pool.")
	}
	if e.Size != "" {
		diags.AddError(chartkit.With(e.path, "size"), "size needs a GPU",
			"Sizing presets are CPU and memory per GPU, and this "+e.kind+" has no gpu block. Allowed: set cpu and "+
				"memory, or add a gpu block.")
	}
	if e.Spot {
		diags.AddWarning(chartkit.With(e.path, "spot"), "spot is ignored without a GPU",
			"spot selects spot GPU capacity; this "+e.kind+" has no gpu block, so nothing is selected. Allowed: remove "+
				"spot, or add a gpu block.")
	}
	workload.CheckQuantity(diags, e.CPU, chartkit.With(e.path, "cpu"), workload.MaxCPU, "a CPU quantity such as \"4\" or \"500m\"")
	workload.CheckQuantity(diags, e.Memory, chartkit.With(e.path, "memory"), workload.MaxMemory, "a memory quantity such as \"16Gi\"")
	for _, name := range validate.SortedKeys(e.Env) {
		validate.EnvVarName(diags, name, chartkit.With(e.path, "env", gpudiag.MapKey(name)))
	}
}

// addPlacement writes what Render placed: resources, selectors,
// tolerations (whole: the chart replaces the template's list with it),
// affinity and env.
func (e fiftyOneEntry) addPlacement(entry map[string]any, p chartkit.ValuesPlacement, diags *gpudiag.Diagnostics) {
	res := p.Resources
	chartkit.CPULimitLikeRequest(&res)
	e.addResources(entry, res, diags)
	p.AddPodPlacement(entry)
	if len(p.Env) > 0 {
		entry["env"] = chartkit.StringMapValue(p.Env)
	}
}

// addCPUResources sizes a CPU-only entry: requests equal limits, as in the
// chart's own teamsDoCpuDefault.
func (e fiftyOneEntry) addCPUResources(entry map[string]any, diags *gpudiag.Diagnostics) {
	res := corev1.ResourceRequirements{}
	for name, raw := range map[corev1.ResourceName]string{corev1.ResourceCPU: e.CPU, corev1.ResourceMemory: e.Memory} {
		if raw == "" {
			continue
		}
		q, err := resource.ParseQuantity(raw)
		if err != nil {
			return // reported by checkCPUOnly
		}
		if res.Limits == nil {
			res.Limits, res.Requests = corev1.ResourceList{}, corev1.ResourceList{}
		}
		res.Limits[name], res.Requests[name] = q, q
	}
	e.addResources(entry, res, diags)
	if len(e.Env) > 0 {
		entry["env"] = chartkit.StringMapValue(e.Env)
	}
}

func (e fiftyOneEntry) addResources(entry map[string]any, res corev1.ResourceRequirements, diags *gpudiag.Diagnostics) {
	limits := e.resourceList(res.Limits, diags)
	requests := e.resourceList(res.Requests, diags)
	if limits == nil && requests == nil {
		return
	}
	resources := map[string]any{}
	if limits != nil {
		resources["limits"] = limits
	}
	if requests != nil {
		resources["requests"] = requests
	}
	entry["resources"] = resources
}

// resourceList writes quantities the way the chart's values hold them:
// extended resources (GPUs) as integers, CPU and memory as Kubernetes
// quantity strings, except where teamsDoCpuDefault's schema wants an
// integer CPU.
func (e fiftyOneEntry) resourceList(list corev1.ResourceList, diags *gpudiag.Diagnostics) map[string]any {
	if len(list) == 0 {
		return nil
	}
	out := map[string]any{}
	for name, q := range list {
		switch {
		case name == corev1.ResourceCPU && e.Key == CPUDefaultKey:
			if q.MilliValue()%1000 != 0 {
				diags.AddError(chartkit.With(e.path, "cpu"), "teamsDoCpuDefault needs whole CPUs",
					"The chart's values.schema.json types teamsDoCpuDefault's resources cpu as an integer, so "+
						strconv.Quote(q.String())+" is rejected at install. Allowed: a whole number of CPUs such as \"4\".")
				continue
			}
			out[string(name)] = q.Value()
		case name == corev1.ResourceCPU || name == corev1.ResourceMemory:
			out[string(name)] = q.String()
		default:
			out[string(name)] = q.Value()
		}
	}
	return out
}

func (e fiftyOneEntry) addCommon(entry map[string]any) {
	if e.Enabled != nil {
		entry["enabled"] = *e.Enabled
	}
	if e.Image != nil {
		image := map[string]any{}
		if e.Image.Repository != "" {
			image["repository"] = e.Image.Repository
		}
		if e.Image.Tag != "" {
			image["tag"] = e.Image.Tag
		}
		if len(image) > 0 {
			entry["image"] = image
		}
	}
}

func addDeploymentFields(entry map[string]any, d FiftyOneDeployment, path []any, diags *gpudiag.Diagnostics) {
	if d.Replicas != nil {
		if *d.Replicas < 1 {
			diags.AddError(chartkit.With(path, "replicas"), "Invalid replicas",
				"replicas is "+strconv.Itoa(int(*d.Replicas))+"; the chart's schema requires replicaCount ≥ 1, and 0 would "+
					"fall back to the template's replicaCount. Allowed: 1 or more; to stop the runner set enabled = false.")
		} else {
			entry["replicaCount"] = int64(*d.Replicas)
		}
	}
	if d.Description != "" {
		entry["description"] = d.Description
	}
}

func addJobFields(entry map[string]any, j JobTemplate, path []any, diags *gpudiag.Diagnostics) {
	setInt32 := func(key, attribute string, v *int32, minimum int32) {
		if v == nil {
			return
		}
		if *v < minimum {
			diags.AddError(chartkit.With(path, attribute), "Value too small",
				"The value is "+strconv.Itoa(int(*v))+". Allowed: "+strconv.Itoa(int(minimum))+" or more.")
			return
		}
		entry[key] = int64(*v)
	}
	setInt32("backoffLimit", "backoff_limit", j.BackoffLimit, 0)
	setInt32("ttlSecondsAfterFinished", "ttl_seconds_after_finished", j.TTLSecondsAfterFinished, 0)
	setInt32("parallelism", "parallelism", j.Parallelism, 1)
	if v := j.ActiveDeadlineSeconds; v != nil {
		if *v < 1 {
			diags.AddError(chartkit.With(path, "active_deadline_seconds"), "Value too small",
				"active_deadline_seconds is "+strconv.FormatInt(*v, 10)+". Allowed: 1 or more.")
		} else {
			entry["activeDeadlineSeconds"] = *v
		}
	}
}
