#pragma once
// `rdmabench export --junit`: one JUnit <testcase> per workload point, one <testsuite> per
// campaign, in the XML that Jenkins, GitLab and most CI systems read. It follows the Ant/Jenkins
// JUnit schema ("junit-4"): tests/fixtures/junit.xsd is the part of it this writes, and the tests
// validate every export against it with `xmllint --schema`. A failed point is a <failure> whose
// message is the reason's first line and whose text is all of it; a skipped point is <skipped>
// with its reason. Written with libxml2's xmlTextWriter (escaping, encoding).
#include <string>

#include "report/export_set.h"

namespace rdmabench {

std::string junit_xml(const ExportSet& set);

}  // namespace rdmabench
