// Conversions shared by the binding files of schedlab._core (defined in module.cpp).
#pragma once
#include <pybind11/pybind11.h>

#include "schedlab/params.h"
#include "schedlab/results.h"

namespace schedlab::bindings {

// A result as the dict of NumPy columns that schedlab.Result reads (moves the vectors).
pybind11::dict result_dict(SimResult&& r);
// Python keyword values (numbers, booleans, strings) as the core's parameter values.
ParamValues to_values(const pybind11::dict& d);
// Defined in python_scheduler.cpp: the Python scheduler interface of the MapReduce engine.
void bind_python_scheduler(pybind11::module_& m);

}  // namespace schedlab::bindings
