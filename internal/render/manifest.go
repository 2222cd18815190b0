package render

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// manifestYAML renders objects as YAML documents separated by "---".
// sigs.k8s.io/yaml goes through JSON, so field names are the API's and map
// keys come out sorted: the same input always gives the same text, and a
// change shows up as a line-level diff in the Terraform plan.
//
// Strings longer than 80 columns are folded onto continuation lines (the
// go-yaml v2 default, which kubectl also had). The switch that turns folding
// off (yaml.FutureLineWrap) is process-global and would change the output of
// every other YAML user in the provider, such as Helm, so we keep folding.
func manifestYAML(objects []Object) (string, error) {
	var b strings.Builder
	for i, obj := range objects {
		doc, err := manifestDocument(obj)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(doc)
	}
	return b.String(), nil
}

func manifestDocument(obj Object) ([]byte, error) {
	j, err := json.Marshal(withoutStatus(obj))
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	return yaml.JSONToYAML(j)
}

// specOnly is an object without its status. The status struct of
// Deployment, Job and PVC has no omitzero, so it would print as
// "status: {}": noise, and a field the server owns.
// (metadata.creationTimestamp is omitzero in k8s.io/apimachinery v0.37, so
// "creationTimestamp: null" no longer appears.)
type specOnly struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            any               `json:"spec"`
}

func withoutStatus(obj Object) any {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return specOnly{TypeMeta: o.TypeMeta, Metadata: o.ObjectMeta, Spec: o.Spec}
	case *batchv1.Job:
		return specOnly{TypeMeta: o.TypeMeta, Metadata: o.ObjectMeta, Spec: o.Spec}
	case *corev1.PersistentVolumeClaim:
		return specOnly{TypeMeta: o.TypeMeta, Metadata: o.ObjectMeta, Spec: o.Spec}
	case *resourcev1.ResourceClaimTemplate:
		return specOnly{TypeMeta: o.TypeMeta, Metadata: o.ObjectMeta, Spec: claimSpecOnly{Spec: o.Spec.Spec}}
	case *resourcev1beta1.ResourceClaimTemplate:
		return specOnly{TypeMeta: o.TypeMeta, Metadata: o.ObjectMeta, Spec: claimSpecOnly{Spec: o.Spec.Spec}}
	}
	return obj
}

// claimSpecOnly drops ResourceClaimTemplateSpec.metadata, which Render never
// sets and which would print as "metadata: {}".
type claimSpecOnly struct {
	Spec any `json:"spec"`
}
