package workload

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// reparseManifest reads every document of a manifest back into the typed
// object of the same position and compares it with what Render returned.
func reparseManifest(r *Rendered) error {
	docs := strings.Split(r.Manifest, "\n---\n")
	if len(docs) != len(r.Objects) {
		return fmt.Errorf("%d documents for %d objects", len(docs), len(r.Objects))
	}
	for i, doc := range docs {
		parsed, err := emptyLike(r.Objects[i])
		if err != nil {
			return err
		}
		if err := yaml.UnmarshalStrict([]byte(doc), parsed); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if !equality.Semantic.DeepEqual(parsed, r.Objects[i]) {
			return fmt.Errorf("document %d (%T) does not round-trip:\n%s", i, r.Objects[i], doc)
		}
	}
	return nil
}

func emptyLike(obj Object) (Object, error) {
	switch obj.(type) {
	case *corev1.PersistentVolumeClaim:
		return &corev1.PersistentVolumeClaim{}, nil
	case *resourcev1.ResourceClaimTemplate:
		return &resourcev1.ResourceClaimTemplate{}, nil
	case *resourcev1beta1.ResourceClaimTemplate:
		return &resourcev1beta1.ResourceClaimTemplate{}, nil
	case *appsv1.Deployment:
		return &appsv1.Deployment{}, nil
	case *appsv1.StatefulSet:
		return &appsv1.StatefulSet{}, nil
	case *batchv1.Job:
		return &batchv1.Job{}, nil
	case *batchv1.CronJob:
		return &batchv1.CronJob{}, nil
	case *corev1.Service:
		return &corev1.Service{}, nil
	}
	return nil, fmt.Errorf("unexpected object %T", obj)
}

func TestManifestRoundTrip(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.cloud+"/"+c.name, func(t *testing.T) {
			r, diags := ResolveAndRender(c.workload, c.opts)
			rendertest.RequireNoErrors(t, diags)
			if err := reparseManifest(r); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestManifestHasNoServerOwnedNoise(t *testing.T) {
	for _, c := range goldenCases() {
		r, _ := ResolveAndRender(c.workload, c.opts)
		// "\nstatus:" is an object's status; a pod failure policy's
		// condition pattern has a status of its own, further in.
		for _, noise := range []string{"creationTimestamp", "\nstatus:", "metadata: {}", "resources: {}"} {
			if strings.Contains(r.Manifest, noise) {
				t.Errorf("%s/%s: manifest contains %q", c.cloud, c.name, noise)
			}
		}
	}
}
