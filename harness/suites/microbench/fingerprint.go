package microbench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint is the sha256 of the tasks' canonical serialisation: one JSON
// line per item, {"task": id, ...item fields}, in task and item order. Two
// runs with the same fingerprint scored byte-identical items.
func Fingerprint(tasks []*Task) string {
	h := sha256.New()
	for _, t := range tasks {
		for _, it := range t.Items {
			line, err := json.Marshal(struct {
				Task string `json:"task"`
				Item
			}{t.ID, it})
			if err != nil {
				panic(err) // an Item always marshals
			}
			h.Write(line)
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
