package runner

import "syscall"

// filesystemGB is the size of the filesystem holding dir, in GB.
func filesystemGB(dir string) (float64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return float64(st.Blocks) * float64(st.Bsize) / 1e9, nil
}
