package main

import (
	"math"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The release configuration must produce what Terraform registries
// expect: zips named terraform-provider-gpu_<version>_<os>_<arch>.zip, a
// SHA256SUMS file that also covers the registry manifest, and a detached
// signature of it. goreleaser cannot be installed here, so its config is
// checked by reading it.
func TestGoreleaserConfigMatchesRegistryLayout(t *testing.T) {
	raw, err := os.ReadFile(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			Binary  string   `json:"binary"`
			Ldflags []string `json:"ldflags"`
			Env     []string `json:"env"`
		} `json:"builds"`
		Archives []struct {
			Formats      []string `json:"formats"`
			NameTemplate string   `json:"name_template"`
		} `json:"archives"`
		Checksum struct {
			NameTemplate string `json:"name_template"`
			Algorithm    string `json:"algorithm"`
			ExtraFiles   []struct {
				Glob string `json:"glob"`
			} `json:"extra_files"`
		} `json:"checksum"`
		Signs []struct {
			Artifacts string `json:"artifacts"`
		} `json:"signs"`
	}
	// Only the fields read here matter; goreleaser's others are ignored.
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("parsing .goreleaser.yml: %v", err)
	}
	checks := map[string]bool{
		"one build":                          len(cfg.Builds) == 1,
		"binary named with version":          len(cfg.Builds) == 1 && cfg.Builds[0].Binary == "{{ .ProjectName }}_v{{ .Version }}",
		"version injected into main.version": len(cfg.Builds) == 1 && strings.Contains(strings.Join(cfg.Builds[0].Ldflags, " "), "-X main.version={{.Version}}"),
		"static binaries":                    len(cfg.Builds) == 1 && strings.Contains(strings.Join(cfg.Builds[0].Env, " "), "CGO_ENABLED=0"),
		"zip archives":                       len(cfg.Archives) == 1 && len(cfg.Archives[0].Formats) == 1 && cfg.Archives[0].Formats[0] == "zip",
		"archive name":                       len(cfg.Archives) == 1 && cfg.Archives[0].NameTemplate == "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}",
		"SHA256SUMS name":                    cfg.Checksum.NameTemplate == "{{ .ProjectName }}_{{ .Version }}_SHA256SUMS" && cfg.Checksum.Algorithm == "sha256",
		"manifest in the checksums":          len(cfg.Checksum.ExtraFiles) == 1 && cfg.Checksum.ExtraFiles[0].Glob == "terraform-registry-manifest.json",
		"checksums signed":                   len(cfg.Signs) == 1 && cfg.Signs[0].Artifacts == "checksum",
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf(".goreleaser.yml: %s", what)
		}
	}
	if _, err := os.Stat("terraform-registry-manifest.json"); err != nil {
		t.Errorf("terraform-registry-manifest.json: %v", err)
	}
}

func TestQuietUnlessLogging(t *testing.T) {
	for _, name := range logEnv {
		t.Setenv(name, "")
	}
	quietUnlessLogging()
	if got := os.Getenv("TF_LOG_SDK_FRAMEWORK"); got != "off" {
		t.Fatalf("without TF_LOG the SDK logs must be off, TF_LOG_SDK_FRAMEWORK=%q", got)
	}

	t.Setenv("TF_LOG_SDK_FRAMEWORK", "")
	t.Setenv("TF_LOG", "DEBUG")
	quietUnlessLogging()
	if got := os.Getenv("TF_LOG_SDK_FRAMEWORK"); got != "" {
		t.Fatalf("with TF_LOG=DEBUG the SDK logs must be left alone, TF_LOG_SDK_FRAMEWORK=%q", got)
	}
}

func TestTuneGCLeavesExplicitSettingsAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tuneGC()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Fatalf("GC percent %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Fatalf("memory limit %d, want %d", got, memoryLimit)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set: GC percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("GOMEMLIMIT set: memory limit changed to %d", got)
	}
}
