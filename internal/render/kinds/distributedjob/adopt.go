package distributedjob

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Import takes over a hand-written Indexed Job whose pods have a subdomain,
// with the headless Service of that name (docs/design/distributed-jobs.md,
// "Import"): nodes from its completions, the launcher from its PET_*
// variables, the port and the pods' selector from the Service.

// The Job controller's labels: batch/v1 writes them on the pod template of
// every Job whose selector it generates (all of gpu_workload's), with the
// Job's UID and name.
const (
	LabelControllerUID       = "batch.kubernetes.io/controller-uid"
	LabelJobName             = "batch.kubernetes.io/job-name"
	LabelLegacyControllerUID = "controller-uid"
	LabelLegacyJobName       = "job-name"
)

// labelKueueQueueName is where a Job names its Kueue LocalQueue.
const labelKueueQueueName = "kueue.x-k8s.io/queue-name"

// adoption is the kind's import: the Job's own attributes, then the
// Service's.
func adoption() *kindkit.Adopt {
	return &kindkit.Adopt{
		Attributes:   adoptAttributes,
		ServerLabels: []string{LabelControllerUID, LabelJobName, LabelLegacyControllerUID, LabelLegacyJobName},
		ServerFields: [][]string{{"spec", "selector"}},
		Companions: kindkit.Typed(func(j *batchv1.Job) []kindkit.Object {
			return []kindkit.Object{&corev1.Service{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
				ObjectMeta: metav1.ObjectMeta{Name: j.Spec.Template.Spec.Subdomain, Namespace: j.Namespace},
			}}
		}),
		TakeOver: takeOver,
	}
}

// adoptAttributes: nodes is completions; the job block keeps the failure
// and cleanup settings that differ from the kind's; the queue comes from
// Kueue's label.
func adoptAttributes(obj kindkit.Object, w *spec.Workload) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return
	}
	nodes := int64(1)
	if j.Spec.Completions != nil {
		nodes = int64(*j.Spec.Completions)
	}
	w.Distributed = &spec.DistributedControls{Nodes: &nodes}
	c := spec.JobControls{ActiveDeadlineSeconds: j.Spec.ActiveDeadlineSeconds, TTLSecondsAfterFinished: j.Spec.TTLSecondsAfterFinished}
	if b := j.Spec.BackoffLimit; b != nil && *b != 0 {
		c.BackoffLimit = b
	}
	if c != (spec.JobControls{}) {
		w.Job = &c
	}
	if q := j.Labels[labelKueueQueueName]; q != "" {
		w.Queue = q
		delete(w.Labels, labelKueueQueueName)
		if len(w.Labels) == 0 {
			w.Labels = nil
		}
	}
}

// takeOver checks the Service the pods' names live under and reads the
// port and the pods' selector from it, then the launcher from the GPU
// container's environment.
func takeOver(obj kindkit.Object, companions []kindkit.Object, w *spec.Workload) ([]string, error) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return nil, fmt.Errorf("not a Job")
	}
	ref := fmt.Sprintf("Job %s/%s", j.Namespace, j.Name)
	if sub := j.Spec.Template.Spec.Subdomain; sub != j.Name {
		return nil, fmt.Errorf("%s: its pods' subdomain is %q; a distributed_job names the subdomain and its headless "+
			"Service after the Job, so taking it over would rename the Service its pods resolve each other under. "+
			"Allowed: a Job whose pods' subdomain is its own name (%q), with the headless Service of that name", ref, sub, j.Name)
	}
	var svc *corev1.Service
	if len(companions) > 0 {
		svc, _ = companions[0].(*corev1.Service)
	}
	var fixes []string
	port, err := servicePort(j, svc, w)
	if err != nil {
		return nil, err
	}
	if svc == nil {
		fixes = append(fixes, fmt.Sprintf("creates the headless Service %s/%s, which the pods' names (%s-0.%s, ...) live under",
			j.Namespace, j.Name, j.Name, j.Name))
	}
	if port != spec.DefaultDistributedPort {
		p := int64(port)
		w.Distributed.Port = &p
	}
	w.Ports = slices.DeleteFunc(w.Ports, func(p int32) bool { return p == port })
	if len(w.Ports) == 0 {
		w.Ports = nil
	}
	adoptLauncher(j, w)
	return fixes, nil
}

// servicePort checks that the Service is the pods' headless Service and
// returns its port, and sets the pods' selector from it. Without a Service
// the port is the container's rendezvous port or PET_MASTER_PORT.
func servicePort(j *batchv1.Job, svc *corev1.Service, w *spec.Workload) (int32, error) {
	if svc == nil {
		return portWithoutService(j, *w), nil
	}
	ref := fmt.Sprintf("Service %s/%s", svc.Namespace, svc.Name)
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return 0, fmt.Errorf("%s, the subdomain of Job %s/%s's pods, is not headless (clusterIP %q, type %s): only a "+
			"headless Service gives each pod the DNS name its peers reach it by. A distributed_job takes over only "+
			"its headless Service. Allowed: delete the Service and create it again with clusterIP: None (a Service's "+
			"clusterIP cannot change), then import", ref, j.Namespace, j.Name, svc.Spec.ClusterIP, cmpType(svc.Spec.Type))
	}
	if !selects(svc.Spec.Selector, podLabels(j)) {
		return 0, fmt.Errorf("%s does not select the pods of Job %s/%s (selector %v, pod labels %v): their DNS "+
			"names would not resolve. Allowed: a Service whose selector matches labels of the Job's pod template "+
			"(its own or job-name)", ref, j.Namespace, j.Name, svc.Spec.Selector, j.Spec.Template.Labels)
	}
	if !maps.Equal(svc.Spec.Selector, map[string]string{spec.LabelName: j.Name, spec.LabelInstance: j.Name}) {
		w.SelectorLabels = maps.Clone(svc.Spec.Selector)
	}
	switch len(svc.Spec.Ports) {
	case 0:
		return portWithoutService(j, *w), nil
	case 1:
		if p := svc.Spec.Ports[0]; p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
			return p.Port, nil
		}
	}
	return 0, fmt.Errorf("%s has ports %v; a distributed_job's Service has one, the TCP rendezvous port "+
		"(distributed.port). Allowed: a Service with one TCP port, or none", ref, portNumbers(svc.Spec.Ports))
}

// podLabels are the labels the Job's pods carry: their template's and the
// job name the Job controller adds (its UID changes when the Job is
// re-created, so a Service selecting by it is not kept).
func podLabels(j *batchv1.Job) map[string]string {
	labels := maps.Clone(j.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelJobName], labels[LabelLegacyJobName] = j.Name, j.Name
	for _, k := range []string{LabelControllerUID, LabelLegacyControllerUID} {
		delete(labels, k)
	}
	return labels
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// portWithoutService is the container's rendezvous port, else
// PET_MASTER_PORT, else the default.
func portWithoutService(j *batchv1.Job, w spec.Workload) int32 {
	c := gpuContainer(j, w)
	if c == nil {
		return spec.DefaultDistributedPort
	}
	for _, p := range c.Ports {
		if p.Name == PortName {
			return p.ContainerPort
		}
	}
	for _, e := range c.Env {
		if n, err := strconv.ParseInt(e.Value, 10, 32); e.Name == "PET_MASTER_PORT" && err == nil && n > 0 && n <= MaxPort {
			return int32(n)
		}
	}
	return spec.DefaultDistributedPort
}

// adoptLauncher: launcher torchrun (the default) when the container has
// exactly the PET_* variables the provider renders for this intent, which
// then leave env; otherwise launcher none, and the container's variables
// stay as they are (in env, or in the patch for fieldRefs).
func adoptLauncher(j *batchv1.Job, w *spec.Workload) {
	c := gpuContainer(j, *w)
	want := LauncherEnv(*w)
	if c == nil || !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return slices.Contains(LauncherEnvNames(spec.LauncherTorchrun), e.Name) }) {
		w.Distributed.Launcher = spec.LauncherNone
		return
	}
	for _, e := range want {
		i := slices.IndexFunc(c.Env, func(have corev1.EnvVar) bool { return have.Name == e.Name })
		if i < 0 || !equality.Semantic.DeepEqual(normalEnv(c.Env[i]), e) {
			w.Distributed.Launcher = spec.LauncherNone
			return
		}
	}
	for _, e := range want {
		delete(w.Env, e.Name)
	}
	if len(w.Env) == 0 {
		w.Env = nil
	}
}

// normalEnv is a variable as the server stores it: a fieldRef's apiVersion
// defaults to v1.
func normalEnv(e corev1.EnvVar) corev1.EnvVar {
	if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.APIVersion == "" {
		e = *e.DeepCopy()
		e.ValueFrom.FieldRef.APIVersion = "v1"
	}
	return e
}

// gpuContainer is the container the intent's GPU request is in.
func gpuContainer(j *batchv1.Job, w spec.Workload) *corev1.Container {
	name := w.ContainerName
	if name == "" {
		name = w.Name
	}
	for i, c := range j.Spec.Template.Spec.Containers {
		if c.Name == name {
			return &j.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

func cmpType(t corev1.ServiceType) corev1.ServiceType {
	if t == "" {
		return corev1.ServiceTypeClusterIP
	}
	return t
}

func portNumbers(ports []corev1.ServicePort) []string {
	out := make([]string, 0, len(ports))
	for _, p := range ports {
		out = append(out, strconv.Itoa(int(p.Port))+"/"+string(p.Protocol))
	}
	return out
}
