# A whole-GPU A100 pool on EKS, and a Deployment written with the kubernetes
# provider's typed kubernetes_deployment_v1 that runs there. The pod takes
# all three placement outputs of the pool: node_selector, tolerations and
# kubernetes_v1_affinity. The affinity is what keeps it off the same
# model's MIG and time-sliced nodes (they carry the same node selector
# label): never copy only node_selector.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "kubernetes_deployment_v1" "trainer" {
  metadata {
    name      = "trainer"
    namespace = "ml"
  }

  spec {
    selector {
      match_labels = { app = "trainer" }
    }

    template {
      metadata {
        labels = { app = "trainer" }
      }

      spec {
        node_selector = gpu_node_pool_policy.a100.node_selector

        dynamic "toleration" {
          for_each = gpu_node_pool_policy.a100.tolerations
          content {
            key      = toleration.value.key
            operator = toleration.value.operator
            value    = toleration.value.value
            effect   = toleration.value.effect
          }
        }

        # kubernetes_v1_affinity has the block names of this affinity block;
        # each dynamic block iterates over the list of its own name in the
        # block above. [*] turns null (no affinity) into no block.
        dynamic "affinity" {
          for_each = gpu_node_pool_policy.a100.kubernetes_v1_affinity[*]
          content {
            dynamic "node_affinity" {
              for_each = affinity.value.node_affinity
              content {
                dynamic "required_during_scheduling_ignored_during_execution" {
                  for_each = node_affinity.value.required_during_scheduling_ignored_during_execution
                  iterator = required
                  content {
                    dynamic "node_selector_term" {
                      for_each = required.value.node_selector_term
                      iterator = term
                      content {
                        dynamic "match_expressions" {
                          for_each = term.value.match_expressions
                          content {
                            key      = match_expressions.value.key
                            operator = match_expressions.value.operator
                            values   = match_expressions.value.values
                          }
                        }
                        dynamic "match_fields" {
                          for_each = term.value.match_fields
                          content {
                            key      = match_fields.value.key
                            operator = match_fields.value.operator
                            values   = match_fields.value.values
                          }
                        }
                      }
                    }
                  }
                }

                dynamic "preferred_during_scheduling_ignored_during_execution" {
                  for_each = node_affinity.value.preferred_during_scheduling_ignored_during_execution
                  iterator = preferred
                  content {
                    weight = preferred.value.weight
                    dynamic "preference" {
                      for_each = preferred.value.preference
                      content {
                        dynamic "match_expressions" {
                          for_each = preference.value.match_expressions
                          content {
                            key      = match_expressions.value.key
                            operator = match_expressions.value.operator
                            values   = match_expressions.value.values
                          }
                        }
                        dynamic "match_fields" {
                          for_each = preference.value.match_fields
                          content {
                            key      = match_fields.value.key
                            operator = match_fields.value.operator
                            values   = match_fields.value.values
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }

        container {
          name  = "trainer"
          image = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"
          resources {
            limits = { (gpu_node_pool_policy.a100.resource_name) = 1 }
          }
        }
      }
    }
  }
}
