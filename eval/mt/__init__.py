"""Running MT judges over a data set: items, journal, usage metering, outputs, reports."""
