// Command chartinstall does what `helm upgrade --install` does, with Helm's
// own library (internal/helmchart/helminstall), so `make demo` needs no helm
// CLI: it installs a chart with values files layered as `-f a -f b` would,
// the later file winning, and GPU settings never overridden silently
// (chartkit.MergeBaseValues).
//
//	go run ./scripts/chartinstall -kubeconfig K -chart DIR -release R -namespace N -f base.yaml -f generated.yaml
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	var valueFiles files
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster")
	chart := flag.String("chart", "", "chart directory or .tgz")
	release := flag.String("release", "", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	flag.Var(&valueFiles, "f", "values file; repeat it, later files win (the last is the generated one)")
	flag.Parse()
	if *kubeconfig == "" || *chart == "" || *release == "" || len(valueFiles) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*kubeconfig, *chart, *release, *namespace, valueFiles); err != nil {
		fmt.Fprintln(os.Stderr, "chartinstall:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, chart, release, namespace string, valueFiles []string) error {
	layers := make([]map[string]any, 0, len(valueFiles))
	for _, f := range valueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var values map[string]any
		if err := yaml.Unmarshal(data, &values); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		layers = append(layers, values)
	}
	merged, err := chartkit.MergeBaseValues(layers[:len(layers)-1], layers[len(layers)-1])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rel, err := helminstall.UpgradeInstall(ctx, kubeconfig, chart, release, namespace, merged)
	if err != nil {
		return err
	}
	fmt.Printf("release %s in %s: revision %d\n", rel.Name, rel.Namespace, rel.Revision)
	return nil
}
