"""Le triolet: configuration (``config``), cards and action ids (``rules``), two-plane card multisets
(``multiset``), the batched core (``core``), observations (``observation``) and text pictures (``render``)."""
