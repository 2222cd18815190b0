# What each team's queue may use and uses, per node pool, from Kueue's
# status: read while planning.
data "gpu_queue_usage" "research" {
  name = "research"
}

output "research_gpus_in_use" {
  value = {
    for r in data.gpu_queue_usage.research.queues[0].resources :
    r.flavor => "${r.used} of ${r.quota}" if r.resource == "nvidia.com/gpu"
  }
}

output "research_pending" {
  value = data.gpu_queue_usage.research.queues[0].pending_workloads
}
