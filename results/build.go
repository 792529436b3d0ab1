package results

import (
	"runtime"
	"runtime/debug"
	"sync"
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
	vcs := buildVCS()
	return Build{Version: Version, Revision: vcs.revision, Modified: vcs.modified, GoVersion: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
}

// vcsInfo is the version control state the binary was built from.
type vcsInfo struct {
	revision string
	modified bool
}

// buildVCS reads the binary's build information once: it cannot change
// while the process runs, and every trial record states it.
var buildVCS = sync.OnceValue(func() vcsInfo {
	v := vcsInfo{revision: "unknown"}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.revision = s.Value
			case "vcs.modified":
				v.modified = s.Value == "true"
			}
		}
	}
	return v
})
