// Package tfconv converts Terraform values to render's inputs and back, and
// holds the validators and Kubernetes shapes (tolerations, affinity) more than
// one resource's schema uses. It knows nothing of any resource.
package tfconv
