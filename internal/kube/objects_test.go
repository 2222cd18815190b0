package kube

import (
	"errors"
	"strings"
	"testing"
)

func TestConflictManagersParsed(t *testing.T) {
	for msg, want := range map[string]string{
		`Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`:                                    "kubectl",
		`Apply failed with 2 conflicts: conflicts with "kubectl-edit" using apps/v1:` + "\n- .spec.a\n- .spec.b":                 "kubectl-edit",
		`Apply failed with 2 conflicts: conflict with "argocd" using apps/v1: .a` + "\nconflict with \"flux\" using apps/v1: .b": "argocd,flux",
	} {
		got := strings.Join(newConflictError(ObjectRef{}, errors.New(msg)).Managers, ",")
		if got != want {
			t.Errorf("%q: managers %q, want %q", msg, got, want)
		}
	}
}
