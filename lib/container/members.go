package container

// Members lists the members of the ar archive that the input is (Archive),
// reading their headers under FaultGuard: a mapped input that loses pages
// meanwhile is ErrInputChanged, not a crash. The members before an error
// are returned with it.
func (in *Input) Members() (ms []Piece, err error) {
	defer FaultGuard(&err, func(e error) error { return e })()
	err = Archive(in.R, in.Size, func(p Piece) error {
		ms = append(ms, p)
		return nil
	})
	return ms, err
}
