// Package flyte generates flytepropeller's k8s plugin configuration for
// flyte-core and flyte-binary (Flyte v1 and v2): the GPU resource name,
// resource tolerations, the device and partition node labels of the cloud,
// and the pods propeller would build from them. Chart and propeller facts
// are in docs/design/flyte.md.
package flyte
