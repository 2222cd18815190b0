# A queue applied by gpu_queue is imported by its ClusterQueue's name; the
# configuration (node pools included) is read back from the annotation
# gpu_queue writes on the ClusterQueue.
terraform import gpu_queue.research research
