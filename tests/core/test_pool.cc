// Pool<T> (core/pool.h), which keeps the model's and the searches' workspaces: a lease's object
// goes back to the pool when the lease ends and is handed out again, never to two leases at once.
#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "s2s/core/pool.h"

namespace s2s {

TEST_CASE("Pool reuses a returned object and never shares a leased one", "[core]") {
  Pool<std::vector<float>> pool;
  const std::vector<float>* first = nullptr;
  {
    Pool<std::vector<float>>::Lease a = pool.lease();
    a->assign(1000, 1.0f);  // what it holds is kept with it
    first = &*a;
    const Pool<std::vector<float>>::Lease b = pool.lease();
    CHECK(&*b != first);  // two jobs at once: two objects
  }
  const Pool<std::vector<float>>::Lease again = pool.lease();
  const Pool<std::vector<float>>::Lease other = pool.lease();
  CHECK((&*again == first || &*other == first));  // kept, not made afresh
  CHECK(&*again != &*other);
  CHECK((again->size() == 1000 || other->size() == 1000));
}

TEST_CASE("a moved Pool lease gives its object back once", "[core]") {
  Pool<int> pool;
  const int* object = nullptr;
  {
    Pool<int>::Lease a = pool.lease();
    object = &*a;
    const Pool<int>::Lease moved = std::move(a);
    CHECK(&*moved == object);
  }
  const Pool<int>::Lease x = pool.lease();
  const Pool<int>::Lease y = pool.lease();
  CHECK(&*x == object);  // back once: the second lease is a new object
  CHECK(&*y != object);
}

}  // namespace s2s
