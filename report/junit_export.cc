#include "report/junit_export.h"

#include <libxml/xmlwriter.h>

#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "base/error.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// The XML 1.0 text of `s`: invalid UTF-8 and the control characters XML cannot carry (all below
// U+0020 but tab, newline and carriage return) become U+FFFD.
std::string xml_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n != 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok && n == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r') ok = false;
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

class Writer {
 public:
  Writer() : buf_(xmlBufferCreate(), xmlBufferFree) {
    w_ = xmlNewTextWriterMemory(buf_.get(), 0);
    if (w_ == nullptr) throw Error("libxml2: cannot create a writer");
    xmlTextWriterSetIndent(w_, 1);
    xmlTextWriterSetIndentString(w_, reinterpret_cast<const xmlChar*>("  "));
    check(xmlTextWriterStartDocument(w_, "1.0", "UTF-8", nullptr));
  }
  ~Writer() {
    if (w_ != nullptr) xmlFreeTextWriter(w_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void start(const char* element) { check(xmlTextWriterStartElement(w_, x(element))); }
  void end() { check(xmlTextWriterEndElement(w_)); }
  void attribute(const char* name, const std::string& value) {
    check(xmlTextWriterWriteAttribute(w_, x(name), x(xml_text(value).c_str())));
  }
  void text(const std::string& s) { check(xmlTextWriterWriteString(w_, x(xml_text(s).c_str()))); }
  std::string finish() {
    check(xmlTextWriterEndDocument(w_));
    xmlFreeTextWriter(w_);
    w_ = nullptr;
    return std::string(reinterpret_cast<const char*>(xmlBufferContent(buf_.get())),
                       static_cast<size_t>(xmlBufferLength(buf_.get())));
  }

 private:
  static const xmlChar* x(const char* s) { return reinterpret_cast<const xmlChar*>(s); }
  static void check(int rc) {
    if (rc < 0) throw Error("libxml2: cannot write the JUnit XML");
  }
  std::unique_ptr<xmlBuffer, void (*)(xmlBufferPtr)> buf_;
  xmlTextWriterPtr w_ = nullptr;
};

struct Counts {
  size_t tests = 0, failures = 0, skipped = 0;
  double time_s = 0;
};

Counts count(const std::vector<const ExportPoint*>& points) {
  Counts c;
  for (const ExportPoint* p : points) {
    ++c.tests;
    c.failures += p->status == "failed" ? 1 : 0;
    c.skipped += p->status == "skipped" ? 1 : 0;
    c.time_s += p->duration_s;
  }
  return c;
}

void counts(Writer& w, const Counts& c) {
  w.attribute("tests", std::to_string(c.tests));
  w.attribute("failures", std::to_string(c.failures));
  w.attribute("errors", "0");
  w.attribute("skipped", std::to_string(c.skipped));
  w.attribute("time", seconds(c.time_s));
}

void testcase(Writer& w, const ExportPoint& p) {
  w.start("testcase");
  w.attribute("name", p.name);
  w.attribute("classname", "rdmabench." + p.suite + (p.host_pair.empty() ? "" : "." + p.host_pair));
  w.attribute("time", seconds(p.duration_s));
  if (p.status == "failed") {
    w.start("failure");
    w.attribute("message", p.error.substr(0, p.error.find('\n')));
    w.attribute("type", "failed");
    w.text(p.error);
    w.end();
  } else if (p.status == "skipped") {
    w.start("skipped");
    w.attribute("message", p.error);
    w.end();
  }
  w.end();
}

// A hunt's test cases: one failing case per anomaly (its trigger, terms and the commands that
// reproduce it), or one passing case when it found none. Its evaluations are measurements, not
// tests (a failed one is the score's "failed" term), so they are not written.
std::deque<ExportPoint> hunt_cases(const std::string& suite, const HuntRecord& r) {
  std::deque<ExportPoint> out;
  for (size_t i = 0; i < r.anomalies.size(); ++i) {
    const HuntAnomaly& a = r.anomalies[i];
    std::string terms;
    for (const auto& t : a.fired) terms += (terms.empty() ? "" : ", ") + t;
    ExportPoint p;
    p.name = "anomaly " + std::to_string(i + 1) + ": " + describe_values(a.trigger);
    p.suite = suite;
    p.host_pair = "hunt";
    p.status = "failed";
    p.error = "anomaly: trigger " + describe_values(a.trigger) + " (" + terms +
              "; found at evaluation " + std::to_string(a.found_at) + ")\nreproduce:\n  " +
              a.reproduce_server + "\n  " + a.reproduce_client;
    out.push_back(std::move(p));
  }
  if (out.empty()) {
    ExportPoint p;
    p.name = "hunt: no anomaly in " + std::to_string(r.evaluations) + " evaluations";
    p.suite = suite;
    p.host_pair = "hunt";
    p.status = "ok";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::string junit_xml(const ExportSet& set) {
  std::map<std::string, std::vector<const ExportPoint*>> suites;  // in name order
  std::vector<const ExportPoint*> all;
  std::set<std::string> hunted;
  std::deque<ExportPoint> anomalies;  // a deque: the suites point into it
  for (const auto& [suite, record] : set.hunts) {
    hunted.insert(suite);
    for (ExportPoint& p : hunt_cases(suite, record)) anomalies.push_back(std::move(p));
  }
  for (const ExportPoint& p : set.points) {
    if (hunted.count(p.suite) != 0) continue;
    suites[p.suite].push_back(&p);
    all.push_back(&p);
  }
  for (const ExportPoint& p : anomalies) {
    suites[p.suite].push_back(&p);
    all.push_back(&p);
  }
  Writer w;
  w.start("testsuites");
  w.attribute("name", "rdmabench");
  counts(w, count(all));
  for (const auto& [name, points] : suites) {
    w.start("testsuite");
    w.attribute("name", name);
    counts(w, count(points));
    for (const ExportPoint* p : points) testcase(w, *p);
    w.end();
  }
  w.end();
  return w.finish();
}

}  // namespace rdmabench
