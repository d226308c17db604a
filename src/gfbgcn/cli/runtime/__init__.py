"""The command line's runtime, shared by every verb: argparse types over the library's checks
(:mod:`.argtypes`), the ``--device`` flag (:mod:`.device`), the one-line failure report
(:mod:`.failures`), what a reproduction tells its harness (:mod:`.invocation`), standard streams
that may close (:mod:`.streams`) and one voice under torchrun (:mod:`.torchrun`)."""
