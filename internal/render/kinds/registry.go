// Package kinds is the registry of gpu_workload's kinds: the one place
// that lists them. Every layer asks it about a kind (Lookup, Of,
// ForGroupKind) instead of switching on the kind's name; each kind is a
// package beside this one (kindkit says what it declares). Adding a kind is
// its package and one line in the registration below.
package kinds

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/cronjob"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/deployment"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/distributedjob"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/job"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/statefulset"
)

// registered is every kind, in the order the kinds were added to the
// provider; a new kind goes last. Import looks for a workload's object in
// this order, so a Role written for an earlier release (granting only the
// older kinds) still imports them; the kind attribute's description tells
// the kinds in this order too.
var registered = mustRegister(
	deployment.Kind(),
	job.Kind(),
	statefulset.Kind(),
	cronjob.Kind(),
	distributedjob.Kind(),
)

// Registry holds kinds by name, by GroupKind and by Go type. Several kinds
// may share a GroupKind and type when all but one recognise their objects
// (kindkit.Kind.Recognise): byGK and byType list them, those with a
// recogniser first, the one without last.
type Registry struct {
	kinds        []kindkit.Kind
	byName       map[string]int
	byGK         map[schema.GroupKind][]int
	byType       map[reflect.Type][]int
	defaultIndex int
	hasDefault   bool
}

// Errors of Register, as Kueue's integration manager has them.
var (
	ErrDuplicate        = errors.New("duplicate kind")
	ErrMissingMandatory = errors.New("mandatory field missing")
	ErrSecondDefault    = errors.New("second default kind")
)

// Register adds a kind, refusing one that lacks a mandatory callback or
// fact, or repeats another's name, or another's GroupKind or Go type
// without telling its objects apart: of the kinds on one GroupKind (and
// type), at most one may lack a recogniser, and they must agree on the
// facts the kube layer reads by GroupKind alone (resource, wait).
func (r *Registry) Register(k kindkit.Kind) error {
	if err := check(k); err != nil {
		return err
	}
	if r.byName == nil {
		r.byName, r.byGK, r.byType = map[string]int{}, map[schema.GroupKind][]int{}, map[reflect.Type][]int{}
	}
	gk, typ := k.GVK.GroupKind(), reflect.TypeOf(k.New())
	if _, dup := r.byName[k.Name]; dup {
		return fmt.Errorf("%w %q", ErrDuplicate, k.Name)
	}
	if err := r.checkShared(k, r.byGK[gk], "render "+gk.String()); err != nil {
		return err
	}
	if err := r.checkShared(k, r.byType[typ], "decode into "+typ.String()); err != nil {
		return err
	}
	if k.Default && r.hasDefault {
		return fmt.Errorf("%w: %q after %q", ErrSecondDefault, k.Name, r.kinds[r.defaultIndex].Name)
	}
	i := len(r.kinds)
	r.kinds = append(r.kinds, k)
	r.byName[k.Name] = i
	r.byGK[gk], r.byType[typ] = r.insert(r.byGK[gk], i), r.insert(r.byType[typ], i)
	if k.Default {
		r.defaultIndex, r.hasDefault = i, true
	}
	return nil
}

// checkShared refuses k on a GroupKind or type that the kinds at others
// already use, unless each is told apart: every kind but one recognises
// its objects, and they agree on what the kube layer reads by GroupKind.
func (r *Registry) checkShared(k kindkit.Kind, others []int, what string) error {
	for _, i := range others {
		o := r.kinds[i]
		switch {
		case k.Recognise == nil && o.Recognise == nil:
			return fmt.Errorf("%w: %q and %q both %s, and neither recognises its objects", ErrDuplicate, o.Name, k.Name, what)
		case k.Resource != o.Resource || k.Wait != o.Wait:
			return fmt.Errorf("%w: %q and %q both %s with different resources or waits", ErrDuplicate, o.Name, k.Name, what)
		}
	}
	return nil
}

// insert adds kind i to a list of kinds sharing a GroupKind or type: those
// with a recogniser first, so lookups ask them before the one without.
func (r *Registry) insert(list []int, i int) []int {
	if r.kinds[i].Recognise == nil {
		return append(list, i)
	}
	return append([]int{i}, list...)
}

// pick is the kind of obj among kinds sharing its GroupKind or type: the
// first that recognises it, else the one without a recogniser. A nil obj
// (a lookup by GroupKind alone) gets the one without a recogniser.
func (r *Registry) pick(list []int, obj kindkit.Object) (kindkit.Kind, bool) {
	for _, i := range list {
		k := r.kinds[i]
		if k.Recognise == nil || (obj != nil && k.Recognise(obj)) {
			return k, true
		}
	}
	return kindkit.Kind{}, false
}

// check names the first mandatory part a kind lacks.
func check(k kindkit.Kind) error {
	missing := func(field string) error { return fmt.Errorf("%w %q for kind %q", ErrMissingMandatory, field, k.Name) }
	switch {
	case k.Name == "":
		return missing("Name")
	case k.GVK.Kind == "" || k.GVK.Version == "":
		return missing("GVK")
	case k.Resource == "":
		return missing("Resource")
	case k.New == nil:
		return missing("New")
	case k.Build == nil:
		return missing("Build")
	case k.PodTemplate == nil:
		return missing("PodTemplate")
	case k.Pods == nil:
		return missing("Pods")
	case !slices.Contains([]string{kindkit.WaitRollout, kindkit.WaitComplete, kindkit.WaitNone}, k.Wait.Default):
		return missing("Wait.Default")
	case !k.Kueue.PodByPod && k.Kueue.AdmittedTogether == nil:
		return missing("Kueue.AdmittedTogether")
	case k.Adopt == nil && k.NotAdoptable == "":
		return missing("Adopt or NotAdoptable")
	case k.Adopt != nil && k.Adopt.Companions != nil && k.Adopt.TakeOver == nil:
		return missing("Adopt.TakeOver")
	case len(k.Immutable.SpecFields) > 0 && k.Immutable.DriftSummary == "":
		return missing("Immutable.DriftSummary")
	}
	return nil
}

func mustRegister(kinds ...kindkit.Kind) *Registry {
	r := &Registry{}
	for _, k := range kinds {
		if err := r.Register(k); err != nil {
			panic(err) // a kind package's bug, caught by every test run
		}
	}
	if !r.hasDefault {
		panic("no default workload kind")
	}
	return r
}

// All are the registered kinds in registration order.
func All() []kindkit.Kind { return slices.Clone(registered.kinds) }

// Lookup finds a kind by its name (the kind attribute's value).
func Lookup(name string) (kindkit.Kind, bool) {
	i, ok := registered.byName[name]
	if !ok {
		return kindkit.Kind{}, false
	}
	return registered.kinds[i], true
}

// ForGroupKind finds the kind whose objects have the group and kind, at
// any version: what the kube layer knows of an object it has not decoded.
// Where kinds share a GroupKind it is the one without a recogniser; the
// facts the kube layer reads (resource, wait) are the same for all of
// them, which Register checks. Decode the object and ask Of for its kind.
func ForGroupKind(gk schema.GroupKind) (kindkit.Kind, bool) {
	return registered.pick(registered.byGK[gk], nil)
}

// Of finds the kind of a typed object by its Go type, and by the kinds'
// recognisers where several share it: a rendered, patched or decoded
// workload object. false for any other object.
func Of(obj kindkit.Object) (kindkit.Kind, bool) {
	return registered.pick(registered.byType[reflect.TypeOf(obj)], obj)
}

// Default is the kind of a workload that leaves kind unset.
func Default() kindkit.Kind { return registered.kinds[registered.defaultIndex] }

// Names are the kind attribute's values: the kinds that serve (waited for
// by a rollout) first, then those that run to completion or on a schedule,
// each group in registration order. It is the order the documentation has
// always listed them in.
func Names() []string {
	names := make([]string, 0, len(registered.kinds))
	for _, serving := range []bool{true, false} {
		for _, k := range registered.kinds {
			if (k.Wait.Default == kindkit.WaitRollout) == serving {
				names = append(names, k.Name)
			}
		}
	}
	return names
}
