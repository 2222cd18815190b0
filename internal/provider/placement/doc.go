// Package placement is the pod placement data source and the pod_placement
// and pod_template functions: the scheduling fields of a GPU pod, for use in
// any manifest or chart.
package placement
