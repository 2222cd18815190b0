package kube

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// conflictStatus is the error the API server returns for a server-side
// apply conflict: one FieldManagerConflict cause per field.
func conflictStatus(causes ...metav1.StatusCause) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusConflict, Reason: metav1.StatusReasonConflict,
		Message: "Apply failed with conflicts", Details: &metav1.StatusDetails{Causes: causes},
	}}
}

func managerCause(message, field string) metav1.StatusCause {
	return metav1.StatusCause{Type: metav1.CauseTypeFieldManagerConflict, Message: message, Field: field}
}

func TestConflictManagersComeFromStatusCauses(t *testing.T) {
	cases := map[string]struct {
		err  error
		want string
	}{
		"one field": {conflictStatus(managerCause(`conflict with "kubectl" using apps/v1`, ".spec.replicas")), "kubectl"},
		"two fields, one manager": {conflictStatus(
			managerCause(`conflict with "kubectl-edit" using apps/v1`, ".spec.a"),
			managerCause(`conflict with "kubectl-edit" using apps/v1`, ".spec.b")), "kubectl-edit"},
		"two managers": {conflictStatus(
			managerCause(`conflict with "argocd" using apps/v1`, ".a"),
			managerCause(`conflict with "flux"`, ".b")), "argocd,flux"},
		"a manager name with a quote": {conflictStatus(managerCause(`conflict with "team \"a\"" using v1`, ".a")), `team "a"`},
		"other causes ignored": {conflictStatus(
			metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Message: `conflict with "nobody"`},
			managerCause(`conflict with "helm" using v1`, ".a")), "helm"},
		// Text alone is not a conflict: the causes are what the server means.
		"plain error text": {errors.New(`conflict with "kubectl" using apps/v1`), ""},
	}
	for name, c := range cases {
		got := strings.Join(newConflictError(ObjectRef{}, c.err).Managers, ",")
		if got != c.want {
			t.Errorf("%s: managers %q, want %q", name, got, c.want)
		}
	}
}

func TestExplainRecognisesOnlyManagerConflicts(t *testing.T) {
	c := &Client{Host: "https://example.invalid"}
	var conflict *ConflictError
	if err := c.explain(ObjectRef{}, "apply", conflictStatus(managerCause(`conflict with "kubectl"`, ".a"))); !errors.As(err, &conflict) {
		t.Fatalf("a FieldManagerConflict must become a ConflictError, got %v", err)
	}
	optimistic := apierrors.NewConflict(schemaGR(), "x", errors.New("the object has been modified"))
	if err := c.explain(ObjectRef{}, "update", optimistic); errors.As(err, &conflict) {
		t.Fatalf("a resourceVersion conflict is not a manager conflict: %v", err)
	}
}

func schemaGR() schema.GroupResource {
	return schema.GroupResource{Group: "apps", Resource: "deployments"}
}

// Applying a custom resource whose CRD is missing says so, rather than
// printing the API server's bare 404.
func TestExplainNamesAMissingCRD(t *testing.T) {
	c := &Client{Host: "https://example.invalid"}
	ref := ObjectRef{GVK: schema.GroupVersionKind{Group: "resource.nvidia.com", Version: "v1beta1", Kind: "ComputeDomain"},
		Namespace: "ml", Name: "train"}
	missing := apierrors.NewGenericServerResponse(http.StatusNotFound, "patch",
		schema.GroupResource{Group: "resource.nvidia.com", Resource: "computedomains"}, "", "", 0, false)
	err := c.explain(ref, "apply", missing)
	if err == nil || !strings.Contains(err.Error(), "does not serve ComputeDomain objects (resource.nvidia.com/v1beta1); is its CRD installed?") {
		t.Fatalf("got %v", err)
	}
}
