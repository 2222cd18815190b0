// Package tfconv converts Terraform values to render's inputs and back, and
// holds the validators and Kubernetes shapes (tolerations, affinity) more than
// one resource's schema uses. It knows nothing of any resource.
//
// Conversions are named after what they return, then From and what they
// read: workloadFromModel (a model to render's spec), modelFromSpec (back,
// for import), intentFromModel (a model to the resolved intent),
// GPUFromObject and ObjectFromGPU, RefFromPool, queueFromDynamic,
// specFromAnnotation and annotationFromSpec. Where the argument's type says
// what is read, From ends the name: DynamicFrom, PlainFrom, ObjectFrom,
// KubernetesV1AffinityFrom. A conversion that reads through the caller's
// Converter, beside one that makes its own from a context and reports into
// diagnostics, ends in With (queueFromModelWith under queueFromModel). Not
// toX, xOf, decodeX or xValue. Encode and Decode (and DecodeInto,
// EncodeAttributes, EncodeOutput) are not conversions of one type but the
// reflective codec the conversions are built on: any struct to and from a
// Terraform value, by attribute name.
package tfconv
