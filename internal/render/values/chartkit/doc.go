// Package chartkit holds what every chart's values share: the cloud's
// resolve step (ResolveCloud, the one place under values a cloud name is
// looked up), the placement of a chart's GPU request through the same
// clouds rules a gpu_workload uses
// (and the checks of tolerations and node selectors users type into
// values), YAML paths and plain-value conversion, Helm's merge of base
// values without dropping what the user wrote (MergeBaseValues), the
// canonical values YAML, decoding pod fragments back out of values, and
// Chart and its registry (Register, Registered), the form in which each
// chart package registers with the values front door.
package chartkit
