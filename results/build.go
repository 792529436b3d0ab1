package results

import (
	"runtime"
	"runtime/debug"
)

// Version is dplab's release version. Release builds may set it with
// -ldflags "-X github.com/dplab/dplab/results.Version=v1.2.3".
var Version = "0.1.0-dev"

// Build identifies the code that produced a result.
type Build struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"` // git revision, "unknown" outside a VCS build
	Modified  bool   `json:"modified"` // the working tree had uncommitted changes
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
}

// CurrentBuild describes the running binary.
func CurrentBuild() Build {
	b := Build{Version: Version, Revision: "unknown", GoVersion: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}
