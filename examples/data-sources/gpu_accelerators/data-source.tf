# Models GKE offers with MIG and at least 80 GiB per GPU.
data "gpu_accelerators" "large_mig" {
  cloud          = "gke"
  mig            = true
  min_memory_gib = 80
}

# Let a module's caller choose only accelerators the target cloud offers.
variable "accelerator" {
  type    = string
  default = "l4"
}

data "gpu_accelerators" "aks" {
  cloud = "aks"
}

output "aks_accepts_choice" {
  value = contains(data.gpu_accelerators.aks.names, var.accelerator)
}

output "large_mig_profiles" {
  value = { for a in data.gpu_accelerators.large_mig.accelerators : a.name => [for p in a.mig_profiles : p.name] }
}
