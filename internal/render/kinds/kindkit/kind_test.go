package kindkit

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
)

// A callback of one kind's Go type answers its own objects and gives the
// zero value, not a panic, for any other.
func TestTyped(t *testing.T) {
	replicas := int32(3)
	get := Typed(func(d *appsv1.Deployment) *int32 { return d.Spec.Replicas })
	if got := get(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &replicas}}); got == nil || *got != 3 {
		t.Errorf("own object: %v", got)
	}
	if got := get(&batchv1.Job{}); got != nil {
		t.Errorf("another kind's object: %v, want nil", got)
	}
}

func TestAccepting(t *testing.T) {
	k := Kind{Accepts: []string{BlockJob}}
	if !k.Accepting(BlockJob) || k.Accepting(BlockCronJob) || k.Accepting(AttributeReplicas) {
		t.Errorf("Accepting disagrees with Accepts %v", k.Accepts)
	}
}
