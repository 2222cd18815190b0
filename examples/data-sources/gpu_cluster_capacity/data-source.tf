# Live GPU pools of the cluster: capacity, allocatable, requested and free
# GPUs per pool, with MIG and sharing state, and the devices of DRA pools.
data "gpu_cluster_capacity" "all" {}

output "free_gpus_per_pool" {
  value = {
    for p in data.gpu_cluster_capacity.all.pools :
    p.key => { for r in p.resources : r.name => r.free }
  }
}

# Pools whose GPUs a DRA driver serves: free devices per product and MIG
# profile, e.g. "NVIDIA A100-SXM4-40GB 1g.5gb" = 14.
output "free_dra_devices_per_pool" {
  value = {
    for p in data.gpu_cluster_capacity.all.pools :
    p.key => { for d in p.dra_devices : trimspace("${d.product} ${d.profile}") => d.free }
    if p.dra_driver != ""
  }
}
