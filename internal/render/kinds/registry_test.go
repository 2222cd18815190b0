package kinds

import (
	"errors"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// buildInput is a workload every kind can build: the blocks each kind
// needs are set.
func buildInput(kind string) kindkit.BuildInput {
	w := spec.Workload{Name: "w", Namespace: "ns", Kind: kind, CronJob: &spec.CronJobControls{Schedule: "@daily"}}
	labels := map[string]string{spec.LabelName: "w", spec.LabelInstance: "w"}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "w", Image: "img"}}},
	}
	return kindkit.BuildInput{Workload: w, Meta: metav1.ObjectMeta{Name: "w", Namespace: "ns"}, Pod: pod, Selector: labels}
}

// TestEveryKind is the registration-driven table: every registered kind
// builds an object of its own GVK and Go type, finds its pod template in
// it, is found again from the object, and declares each fact the layers
// above ask for. A kind registered without one of them fails here.
func TestEveryKind(t *testing.T) {
	if len(All()) == 0 {
		t.Fatal("no kind registered")
	}
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			obj, ok := k.Build(buildInput(k.Name))
			if !ok {
				t.Fatal("Build refused a workload with every block set")
			}
			if got := obj.GetObjectKind().GroupVersionKind(); got != k.GVK {
				t.Errorf("built object's TypeMeta is %v, want %v (the apply sends it as is)", got, k.GVK)
			}
			if found, ok := Of(obj); !ok || found.Name != k.Name {
				t.Errorf("Of(built object) = %q, %v", found.Name, ok)
			}
			// An empty object is recognised by no kind: it falls to the
			// kind without a recogniser on the same type, and a lookup by
			// GroupKind alone finds that one too, with the same facts.
			if found, ok := Of(k.New()); !ok || found.GVK != k.GVK || (k.Recognise == nil && found.Name != k.Name) {
				t.Errorf("Of(New()) = %q, %v: New and Build disagree on the Go type", found.Name, ok)
			}
			found, ok := ForGroupKind(k.GVK.GroupKind())
			if !ok || (k.Recognise == nil && found.Name != k.Name) || found.Resource != k.Resource || found.Wait != k.Wait {
				t.Errorf("ForGroupKind(%v) = %q, %v", k.GVK.GroupKind(), found.Name, ok)
			}
			if k.Recognise != nil && (!k.Recognise(obj) || k.Recognise(k.New())) {
				t.Error("Recognise does not tell the built object from an empty one")
			}
			if found, ok := Lookup(k.Name); !ok || found.GVK != k.GVK {
				t.Errorf("Lookup(%q) = %v, %v", k.Name, found.GVK, ok)
			}
			pod := k.PodTemplate(obj)
			if pod == nil || len(pod.Spec.Containers) != 1 || pod.Labels[spec.LabelName] != "w" {
				t.Errorf("PodTemplate does not find the pod template Build was given: %+v", pod)
			}
			if k.Selector != nil {
				if s := k.Selector(obj); s == nil || !maps.Equal(s.MatchLabels, buildInput(k.Name).Selector) {
					t.Errorf("Selector = %v, want the selector labels", s)
				}
			}
			if !slices.Contains(Names(), k.Name) {
				t.Errorf("%q missing from Names()", k.Name)
			}
			if n, _ := k.Pods(spec.Workload{}); n < 0 {
				t.Errorf("Pods of an empty workload = %d", n)
			}
			if !k.Kueue.PodByPod && k.Kueue.AdmittedTogether(obj) < 1 {
				t.Errorf("Kueue admits %d pods of the object together", k.Kueue.AdmittedTogether(obj))
			}
			if k.Wait.Completes && k.Wait.NoPods != "" {
				t.Error("a kind that runs to completion has pods to wait for")
			}
			if (k.Wait.NoPods != "") != (k.Wait.Default == kindkit.WaitNone) {
				t.Errorf("wait_for defaults to %q, but NoPods is %q: only a kind without pods to wait for defaults to none",
					k.Wait.Default, k.Wait.NoPods)
			}
			if err := check(k); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNamesAndDefault: the kind attribute's values and default, in the
// order the documentation has always listed them.
func TestNamesAndDefault(t *testing.T) {
	want := []string{spec.KindDeployment, spec.KindStatefulSet, spec.KindJob, spec.KindCronJob, spec.KindDistributedJob}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if got := Default().Name; got != spec.KindDeployment {
		t.Errorf("Default() = %q", got)
	}
	Names()[0] = "edited"
	All()[0].Name = "edited"
	if Names()[0] != spec.KindDeployment || All()[0].Name != spec.KindDeployment {
		t.Error("Names() or All() hands out the registry's own slice")
	}
	if _, ok := Lookup("daemonset"); ok {
		t.Error("Lookup found an unregistered kind")
	}
}

// TestRegisterRefuses: a kind missing a mandatory part, or repeating
// another's name or type, is refused with the reason.
func TestRegisterRefuses(t *testing.T) {
	valid := func() kindkit.Kind { k, _ := Lookup(spec.KindJob); return k }
	cases := map[string]struct {
		edit func(*kindkit.Kind)
		want error
	}{
		"no build":                    {func(k *kindkit.Kind) { k.Build = nil }, ErrMissingMandatory},
		"no pod template":             {func(k *kindkit.Kind) { k.PodTemplate = nil }, ErrMissingMandatory},
		"no wait":                     {func(k *kindkit.Kind) { k.Wait.Default = "" }, ErrMissingMandatory},
		"no adoption verdict":         {func(k *kindkit.Kind) { k.NotAdoptable = "" }, ErrMissingMandatory},
		"no Kueue pod count":          {func(k *kindkit.Kind) { k.Kueue.AdmittedTogether = nil }, ErrMissingMandatory},
		"no resource":                 {func(k *kindkit.Kind) { k.Resource = "" }, ErrMissingMandatory},
		"immutable, no drift warning": {func(k *kindkit.Kind) { k.Immutable.DriftSummary = "" }, ErrMissingMandatory},
		"same name":                   {func(*kindkit.Kind) {}, ErrDuplicate},
		"same object":                 {func(k *kindkit.Kind) { k.Name = "job2" }, ErrDuplicate},
		"same object, other wait": {func(k *kindkit.Kind) {
			k.Name, k.Recognise, k.Wait.Default = "job2", func(kindkit.Object) bool { return true }, kindkit.WaitNone
		}, ErrDuplicate},
		"same object, recognised": {func(k *kindkit.Kind) {
			k.Name, k.Recognise = "job2", func(kindkit.Object) bool { return true }
		}, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := &Registry{}
			if err := r.Register(valid()); err != nil {
				t.Fatal(err)
			}
			k := valid()
			c.edit(&k)
			if err := r.Register(k); !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("Register = %v, want %v", err, c.want)
			}
		})
	}
	r := &Registry{}
	first, second := Default(), valid()
	second.Default = true
	if err := r.Register(first); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(second); !errors.Is(err, ErrSecondDefault) {
		t.Errorf("a second default kind: %v", err)
	}
}

// TestRecognisedKinds: a distributed job and a job are both batch/v1 Jobs;
// the object tells them apart, a lookup by GroupKind alone finds the job.
func TestRecognisedKinds(t *testing.T) {
	for _, name := range []string{spec.KindJob, spec.KindDistributedJob} {
		k, _ := Lookup(name)
		obj, _ := k.Build(buildInput(name))
		if got, _ := Of(obj); got.Name != name {
			t.Errorf("Of(a built %s) = %q", name, got.Name)
		}
		if got, _ := ForGroupKind(k.GVK.GroupKind()); got.Name != spec.KindJob {
			t.Errorf("ForGroupKind(%v) = %q, want the kind without a recogniser", k.GVK.GroupKind(), got.Name)
		}
	}
}
