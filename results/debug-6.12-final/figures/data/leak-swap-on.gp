set multiplot layout 2,1 margins 0.07,0.98,0.08,0.84 spacing 0.025,0.17 title "leak, swap on, repetition 1 of each kernel column" font ",13"
set grid
set xrange [0:360.1]
set xtics 100
set xlabel "guest seconds"
unset key
set yrange [0:54]
set ytics 20
set title "lca@lca-debug@6.12" noenhanced
unset arrow
unset label
set ylabel "tasks"
set format y "%g"
set arrow from screen 0.077778, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "black" dt 1
set label "all tasks" at screen 0.077778 + 0.035, screen 0.905 left font ",10"
set arrow from screen 0.288889, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "dark-green" dt 1
set label "the workload's tasks" at screen 0.288889 + 0.035, screen 0.905 left font ",10"
set label "" at screen 0.500000 + 0.015, screen 0.905 point pt 2 ps 1.2 lc rgb "blue"
set label "OOM kill" at screen 0.500000 + 0.035, screen 0.905 left font ",10"
set arrow from screen 0.711111, screen 0.905 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "red" dt 2
set label "LCA decision" at screen 0.711111 + 0.035, screen 0.905 left font ",10"
set arrow from 135.16, graph 0 to 135.16, graph 1 nohead dt 2 lc rgb "red"
set arrow from 247.13, graph 0 to 247.13, graph 1 nohead dt 2 lc rgb "red"
prev = 0
plot "leak-swap-on-lca@lca-debug@6.12.dat" u 1:2 w l lc rgb "black", "" u 1:3 w l lc rgb "dark-green", "" u 1:(k = ($6 > prev ? $2 : NaN), prev = $6, k) w p pt 2 ps 1.2 lc rgb "blue"
set yrange [0:269]
set ytics 100
set title "lca@lca-debug@6.12" noenhanced
unset arrow
unset label
set ylabel "MiB"
set format y "%g"
set arrow from screen 0.288889, screen 0.445 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "purple" dt 1
set label "MemAvailable" at screen 0.288889 + 0.035, screen 0.445 left font ",10"
set arrow from screen 0.500000, screen 0.445 rto screen 0.03, screen 0 nohead lw 1.5 lc rgb "orange" dt 1
set label "SwapFree" at screen 0.500000 + 0.035, screen 0.445 left font ",10"
plot "leak-swap-on-lca@lca-debug@6.12.dat" u 1:4 w l lc rgb "purple", "" u 1:5 w l lc rgb "orange"
unset multiplot
