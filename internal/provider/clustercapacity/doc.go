// Package clustercapacity is the gpu_accelerators and gpu_cluster_capacity
// data sources: what the catalog offers, and the GPUs a live cluster has and
// has free per pool.
package clustercapacity
