"""Settings: the table of every setting, where each value comes from (option, variable, file, remembered),
the file formats, the value parsers (distcc hosts among them) and what a workspace remembers."""
