# Live GPU pools of the cluster: capacity, allocatable, requested and free
# GPUs per pool, with MIG and sharing state.
data "gpu_cluster_capacity" "all" {}

output "free_gpus_per_pool" {
  value = {
    for p in data.gpu_cluster_capacity.all.pools :
    p.key => { for r in p.resources : r.name => r.free }
  }
}
