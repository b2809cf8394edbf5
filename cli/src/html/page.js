(function () {
  var filter = document.getElementById('filter');
  var status = document.getElementById('status');
  var shown = document.getElementById('shown');
  var none = document.getElementById('none-shown');
  var nodes = Array.prototype.slice.call(document.querySelectorAll('#nodes .node'));
  var preset = new URLSearchParams(location.hash.slice(1));
  if (preset.has('q')) { filter.value = preset.get('q'); }
  if (preset.has('status')) { status.value = preset.get('status'); }
  function apply() {
    var text = filter.value.trim().toLowerCase();
    var wanted = status.value;
    var count = 0;
    nodes.forEach(function (node) {
      var match = (!wanted || node.getAttribute('data-status') === wanted) &&
        (!text || node.getAttribute('data-search').indexOf(text) !== -1);
      node.hidden = !match;
      if (match) { count += 1; }
    });
    shown.textContent = count + ' of ' + nodes.length + (nodes.length === 1 ? ' node' : ' nodes') + ' shown';
    none.hidden = count !== 0 || nodes.length === 0;
  }
  filter.addEventListener('input', apply);
  status.addEventListener('change', apply);
  apply();
  document.body.setAttribute('data-rendered', 'yes');
})();
