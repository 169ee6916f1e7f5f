"""A workload's bills: one month or a projection over the horizon, priced with the tables in force
each month (``bills``), and many outcomes of uncertain inputs priced as arrays (``outcomes``)."""
