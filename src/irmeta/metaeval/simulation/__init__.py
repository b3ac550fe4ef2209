"""Stochastic simulation of test collections (Urbano and Nagler 2018; Urbano, Lima and
Hanjalic 2019): each run's margin (:mod:`.margins`), each pair's copula and a group's vine
(:mod:`.copulas`), a collection's fitted models and several pooled (:mod:`.models`), and
the trials the error-rate experiment draws from them (:mod:`.trials`)."""
