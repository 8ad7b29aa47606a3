package main

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
)

// repositoryDefaults is what validate checks when no flag names a file: the
// repository's own files. Run where none of them exists (outside the
// repository), it is an error that names the flags instead of a string of
// "no such file" failures.
func repositoryDefaults() (catalogs []string, tasks, fw, mb string, err error) {
	catalogs, _ = filepath.Glob(defaultCatalogGlob)
	sort.Strings(catalogs)
	for _, p := range []string{defaultTasksDir, defaultFWData, defaultMBData} {
		if _, statErr := os.Stat(p); statErr == nil {
			return catalogs, defaultTasksDir, defaultFWData, defaultMBData, nil
		}
	}
	if len(catalogs) > 0 {
		return catalogs, defaultTasksDir, defaultFWData, defaultMBData, nil
	}
	return nil, "", "", "", errors.New("no file named, and this folder has none of the repository's own (" +
		defaultCatalogGlob + ", " + defaultTasksDir + "/, " + defaultFWData + ", " + defaultMBData + "/); " +
		"run it in the feather repository, or name your files: -catalog FILE (repeatable), -tasks DIR, -featherweight FILE, -microbench DIR")
}
