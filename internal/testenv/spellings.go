package testenv

// IntegerSpellings are the ways YAML can write an integer — decimal,
// signed, hexadecimal, octal (YAML 1.2's 0o and YAML 1.1's leading 0),
// binary, with underscores — each with its decimal value. The range
// checks of every YAML reader are tested with them and every reader's
// fuzz target is seeded with them (a hex integer once passed every range
// check).
var IntegerSpellings = []struct{ Text, Decimal string }{
	{"4", "4"}, {"+4", "4"}, {"-4", "-4"}, {"0x4", "4"}, {"-0x4", "-4"}, {"0x0", "0"},
	{"0o4", "4"}, {"-0o4", "-4"}, {"04", "4"}, {"0b100", "4"}, {"-0b100", "-4"},
	{"4_0", "40"}, {"0x_4", "4"}, {"-0b1_00", "-4"},
}
