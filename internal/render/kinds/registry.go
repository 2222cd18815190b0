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
)

// Registry holds kinds by name, by GroupKind and by Go type.
type Registry struct {
	kinds        []kindkit.Kind
	byName       map[string]int
	byGK         map[schema.GroupKind]int
	byType       map[reflect.Type]int
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
// fact, or repeats another's name, GroupKind or Go type.
func (r *Registry) Register(k kindkit.Kind) error {
	if err := check(k); err != nil {
		return err
	}
	if r.byName == nil {
		r.byName, r.byGK, r.byType = map[string]int{}, map[schema.GroupKind]int{}, map[reflect.Type]int{}
	}
	gk, typ := k.GVK.GroupKind(), reflect.TypeOf(k.New())
	if _, dup := r.byName[k.Name]; dup {
		return fmt.Errorf("%w %q", ErrDuplicate, k.Name)
	}
	if i, dup := r.byGK[gk]; dup {
		return fmt.Errorf("%w: %q and %q both render %s", ErrDuplicate, r.kinds[i].Name, k.Name, gk)
	}
	if i, dup := r.byType[typ]; dup {
		return fmt.Errorf("%w: %q and %q both decode into %s", ErrDuplicate, r.kinds[i].Name, k.Name, typ)
	}
	if k.Default && r.hasDefault {
		return fmt.Errorf("%w: %q after %q", ErrSecondDefault, k.Name, r.kinds[r.defaultIndex].Name)
	}
	i := len(r.kinds)
	r.kinds = append(r.kinds, k)
	r.byName[k.Name], r.byGK[gk], r.byType[typ] = i, i, i
	if k.Default {
		r.defaultIndex, r.hasDefault = i, true
	}
	return nil
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
// any version: what import and the kube layer know of an object.
func ForGroupKind(gk schema.GroupKind) (kindkit.Kind, bool) {
	i, ok := registered.byGK[gk]
	if !ok {
		return kindkit.Kind{}, false
	}
	return registered.kinds[i], true
}

// Of finds the kind of a typed object by its Go type: a rendered, patched
// or decoded workload object. false for any other object.
func Of(obj kindkit.Object) (kindkit.Kind, bool) {
	i, ok := registered.byType[reflect.TypeOf(obj)]
	if !ok {
		return kindkit.Kind{}, false
	}
	return registered.kinds[i], true
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
