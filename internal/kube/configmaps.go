package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// ApplyConfigMapKey server-side applies one data key of a ConfigMap under
// manager, creating the ConfigMap if needed. Other managers' keys are left
// alone, so several owners can share one ConfigMap (the GPU Operator reads
// one device plugin ConfigMap with a key per node pool).
func (c *Client) ApplyConfigMapKey(ctx context.Context, namespace, name, manager, key, value string) error {
	data := map[string]string{}
	if key != "" {
		data[key] = value
	}
	return c.applyConfigMapData(ctx, namespace, name, manager, data)
}

// RemoveConfigMapKeys drops what manager applied to the ConfigMap and
// deletes the ConfigMap when no data is left.
func (c *Client) RemoveConfigMapKeys(ctx context.Context, namespace, name, manager string) error {
	if _, found, err := c.ConfigMapKey(ctx, namespace, name, ""); err != nil || !found {
		return err
	}
	if err := c.applyConfigMapData(ctx, namespace, name, manager, nil); err != nil {
		return err
	}
	cm, err := c.Typed.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return c.explain(ObjectRef{GVK: configMapGVK, Namespace: namespace, Name: name}, "get", err)
	}
	if len(cm.Data) > 0 || len(cm.BinaryData) > 0 {
		return nil
	}
	return c.Delete(ctx, ObjectRef{GVK: configMapGVK, Namespace: namespace, Name: name}, cm.UID)
}

// ConfigMapKey reads one key; found is false when the ConfigMap or the key
// is missing. An empty key only checks that the ConfigMap exists.
func (c *Client) ConfigMapKey(ctx context.Context, namespace, name, key string) (string, bool, error) {
	cm, err := c.Typed.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, c.explain(ObjectRef{GVK: configMapGVK, Namespace: namespace, Name: name}, "get", err)
	}
	if key == "" {
		return "", true, nil
	}
	v, ok := cm.Data[key]
	return v, ok, nil
}

func (c *Client) applyConfigMapData(ctx context.Context, namespace, name, manager string, data map[string]string) error {
	body := corev1ac.ConfigMap(name, namespace)
	if len(data) > 0 {
		body.WithData(data)
	}
	// Force only claims this owner's keys; the manager is its own.
	_, err := c.Typed.CoreV1().ConfigMaps(namespace).Apply(ctx, body, metav1.ApplyOptions{FieldManager: manager, Force: true})
	if err != nil && !apierrors.IsNotFound(err) {
		return c.explain(ObjectRef{GVK: configMapGVK, Namespace: namespace, Name: name}, "apply", err)
	}
	return err
}
