package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// serverVersion is the cluster's major.minor, as the API floor and the
// provider render for it.
func serverVersion(cs kubernetes.Interface) (*utilversion.Version, error) {
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		return nil, err
	}
	return utilversion.ParseGeneric(strings.TrimSuffix(info.Major, "+") + "." + strings.TrimSuffix(info.Minor, "+"))
}

// hclWriter writes HCL blocks with two-space indentation.
type hclWriter struct {
	b     strings.Builder
	depth int
	// name is the rendered workload's name: a string equal to it is written
	// as format(spec.NameFormat, count.index), so each resource gets its own.
	name string
}

func (w *hclWriter) line(format string, args ...any) {
	w.b.WriteString(strings.Repeat("  ", w.depth))
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteString("\n")
}

func (w *hclWriter) open(name string) { w.line("%s {", name); w.depth++ }

func (w *hclWriter) close() { w.depth--; w.line("}") }

// value is s as an HCL expression.
func (w *hclWriter) value(s string) string {
	if s == w.name {
		return fmt.Sprintf("format(%s, count.index)", hclString(spec.NameFormat))
	}
	return hclString(s)
}

func (w *hclWriter) attr(name, s string) {
	if s != "" {
		w.line("%s = %s", name, w.value(s))
	}
}

func (w *hclWriter) strMap(name string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	w.open(name + " =")
	for _, k := range keys {
		w.line("%s = %s", hclString(k), w.value(m[k]))
	}
	w.close()
}

func (w *hclWriter) quantities(name string, rl corev1.ResourceList) {
	m := make(map[string]string, len(rl))
	for k, q := range rl {
		m[string(k)] = q.String()
	}
	w.strMap(name, m)
}

// hclString quotes s for HCL: Go's escapes, and no template sequences.
func hclString(s string) string {
	q := strconv.Quote(s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(q)
}

// deploymentHCL writes d as `count = n` kubernetes_deployment_v1 resources
// named like gpu_workload's, wait_for_rollout = true. It writes the fields
// the benchmark's render produces and fails on any other, so the peer never
// creates less than gpu_workload does without saying so.
func deploymentHCL(d *appsv1.Deployment, name string, n int) (string, error) {
	if err := onlyWrittenFields(d); err != nil {
		return "", err
	}
	w := &hclWriter{name: name}
	w.line("")
	w.open(`resource "kubernetes_deployment_v1" "bench"`)
	w.line("count            = %d", n)
	w.line("wait_for_rollout = true")
	w.line("")
	w.objectMeta("metadata", d.ObjectMeta, true)
	w.open("spec")
	if d.Spec.Replicas != nil {
		w.line("replicas = %s", hclString(strconv.Itoa(int(*d.Spec.Replicas))))
	}
	if d.Spec.Selector != nil {
		w.open("selector")
		w.strMap("match_labels", d.Spec.Selector.MatchLabels)
		w.close()
	}
	if d.Spec.Strategy.Type != "" {
		w.open("strategy")
		w.attr("type", string(d.Spec.Strategy.Type))
		w.close()
	}
	w.open("template")
	w.objectMeta("metadata", d.Spec.Template.ObjectMeta, false)
	w.podSpec(d.Spec.Template.Spec)
	w.close()
	w.close()
	w.close()
	return w.b.String(), nil
}

func (w *hclWriter) objectMeta(block string, m metav1.ObjectMeta, named bool) {
	w.open(block)
	if named {
		w.attr("name", m.Name)
		w.attr("namespace", m.Namespace)
	}
	w.strMap("labels", m.Labels)
	w.strMap("annotations", m.Annotations)
	w.close()
}

func (w *hclWriter) podSpec(s corev1.PodSpec) {
	w.open("spec")
	w.strMap("node_selector", s.NodeSelector)
	if na := nodeAffinity(s.Affinity); na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		w.open("affinity")
		w.open("node_affinity")
		w.open("required_during_scheduling_ignored_during_execution")
		for _, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			w.open("node_selector_term")
			for _, e := range term.MatchExpressions {
				w.open("match_expressions")
				w.attr("key", e.Key)
				w.attr("operator", string(e.Operator))
				if len(e.Values) > 0 {
					quoted := make([]string, len(e.Values))
					for i, v := range e.Values {
						quoted[i] = hclString(v)
					}
					w.line("values   = [%s]", strings.Join(quoted, ", "))
				}
				w.close()
			}
			w.close()
		}
		w.close()
		w.close()
		w.close()
	}
	for _, t := range s.Tolerations {
		w.open("toleration")
		w.attr("key", t.Key)
		w.attr("operator", string(t.Operator))
		w.attr("value", t.Value)
		w.attr("effect", string(t.Effect))
		if t.TolerationSeconds != nil {
			w.line("toleration_seconds = %s", hclString(strconv.FormatInt(*t.TolerationSeconds, 10)))
		}
		w.close()
	}
	for _, c := range s.Containers {
		w.open("container")
		w.attr("name", c.Name)
		w.attr("image", c.Image)
		if len(c.Command) > 0 || len(c.Args) > 0 {
			w.line("command = %s", hclList(c.Command))
			w.line("args    = %s", hclList(c.Args))
		}
		for _, e := range c.Env {
			w.open("env")
			w.attr("name", e.Name)
			w.line("value = %s", w.value(e.Value))
			w.close()
		}
		if len(c.Resources.Limits) > 0 || len(c.Resources.Requests) > 0 {
			w.open("resources")
			w.quantities("limits", c.Resources.Limits)
			w.quantities("requests", c.Resources.Requests)
			w.close()
		}
		w.close()
	}
	w.close()
}

func hclList(xs []string) string {
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = hclString(x)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func nodeAffinity(a *corev1.Affinity) *corev1.NodeAffinity {
	if a == nil {
		return nil
	}
	return a.NodeAffinity
}

// onlyWrittenFields fails when d sets a field deploymentHCL does not write.
func onlyWrittenFields(d *appsv1.Deployment) error {
	c := d.DeepCopy()
	c.TypeMeta, c.Status = metav1.TypeMeta{}, appsv1.DeploymentStatus{}
	c.Name, c.Namespace, c.Labels, c.Annotations = "", "", nil, nil
	c.Spec.Replicas, c.Spec.Strategy.Type = nil, ""
	if c.Spec.Selector != nil {
		c.Spec.Selector.MatchLabels = nil
		if reflect.DeepEqual(*c.Spec.Selector, metav1.LabelSelector{}) {
			c.Spec.Selector = nil
		}
	}
	t := &c.Spec.Template
	t.Labels, t.Annotations = nil, nil
	ps := &t.Spec
	ps.NodeSelector, ps.Tolerations = nil, nil
	if na := nodeAffinity(ps.Affinity); na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			terms[i].MatchExpressions = nil
		}
		if reflect.DeepEqual(terms, make([]corev1.NodeSelectorTerm, len(terms))) {
			na.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}
		if reflect.DeepEqual(*na, corev1.NodeAffinity{}) {
			ps.Affinity.NodeAffinity = nil
		}
		if reflect.DeepEqual(*ps.Affinity, corev1.Affinity{}) {
			ps.Affinity = nil
		}
	}
	for i := range ps.Containers {
		k := &ps.Containers[i]
		k.Name, k.Image, k.Command, k.Args = "", "", nil, nil
		for _, e := range k.Env {
			if e.ValueFrom != nil {
				return fmt.Errorf("container %s: env %s comes from a source, which is not written", d.Spec.Template.Spec.Containers[i].Name, e.Name)
			}
		}
		k.Env, k.Resources.Limits, k.Resources.Requests = nil, nil, nil
		if !reflect.DeepEqual(*k, corev1.Container{}) {
			return fmt.Errorf("container %s sets fields that are not written: %s", d.Spec.Template.Spec.Containers[i].Name, jsonOf(*k))
		}
	}
	ps.Containers = nil
	if !reflect.DeepEqual(*c, appsv1.Deployment{}) {
		return fmt.Errorf("fields that are not written: %s", jsonOf(*c))
	}
	return nil
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
